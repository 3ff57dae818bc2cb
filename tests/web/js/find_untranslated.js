// The pseudo-language walk's finder (tests/web/test_i18n_browser.py): every visible text node,
// aria-label, title and placeholder of the page that is not bracketed, once names (the
// argument), card labels, hashes, numbers and punctuation are set aside.
((names) => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  const strip = (text) => {
    let rest = text;
    for (let i = 0; i < 4; i++) rest = rest.replace(/\[[^\[\]]*\]/g, ' ');
    for (const name of names) rest = rest.split(name).join(' ');
    rest = rest.replace(/(10|[2-9AJQKT])[♣♦♥♠]/g, ' ');
    rest = rest.replace(/\b[0-9a-f]{6,}\b/g, ' ');  // hashes, hex prefixes
    return /\p{L}/u.test(rest) ? rest.trim() : null;
  };
  const out = [];
  const skip = (el) => el.closest('[translate="no"], script, style, noscript, code, .card, pre.grid');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    const el = n.parentElement;
    if (!el || skip(el) || !el.checkVisibility()) continue;
    const left = strip(n.textContent);
    if (left) out.push(`text ${JSON.stringify(n.textContent.trim().slice(0, 80))} in <${el.tagName.toLowerCase()} class="${el.className}">`);
  }
  for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (skip(el) || !el.checkVisibility()) continue;
    for (const attr of ['aria-label', 'title', 'placeholder']) {
      const value = el.getAttribute(attr);
      if (value && strip(value)) out.push(`${attr} ${JSON.stringify(value.slice(0, 80))} on <${el.tagName.toLowerCase()} class="${el.className}">`);
    }
  }
  return out;
})
