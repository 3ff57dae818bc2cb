"""Records, bundles and their offline verification (docs/RECORDS.md). Pure."""
