"""Records taken out of the chat: a trial's zapisnik as a self-contained HTML file sealed by a SHA-256 chain
(`zapisnik`, `chain`), gathered from the database by `load`."""
