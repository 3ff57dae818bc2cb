// The rules page's worked examples (rulespage.js), taken from the contract's vectors
// (tests/data/gaps-variants-v1.json; tests/web/js/gaps_variants.test.mjs holds them to it).
// The page replays each with the same engine as the verifier, so what it shows is what the
// rules give.

const ZERO = "0".repeat(64);

export const EXAMPLES = {
  // case montana, seed 00..00: the deal and its first move
  montana: { seed: ZERO, options: { variant: "montana" }, move: { kind: "move", card: "6C", to: [1, 7] } },
  // case free_parking, seed e4c537b6...: the first move of the deal, into a gap that takes
  // 9H after its left neighbour 8H or JD before its right neighbour QD
  free_parking: {
    seed: "e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97",
    options: { variant: "free_parking" },
    move: { kind: "move", card: "JD", to: [0, 6] },
  },
  // case addiction, seed 00..00, player 1's game: the position where it was first blocked
  // (a vectors position) and its redeal 1
  addiction: {
    seed: ZERO,
    options: { variant: "addiction" },
    playerId: 1,
    blocked: [
      "JD QD KD -- 5D 8D 2S 3S 4S 5S 6S KC --",
      "9D TD 4C JS QS TS 2C 3C 5C 6C 7C 8S 9S",
      "2D 3D 4D 8H 9H TH JH QH KH -- -- 6D 7D",
      "2H 7S 8C 9C TC JC QC 3H 4H 5H 6H 7H KS",
    ],
  },
};
