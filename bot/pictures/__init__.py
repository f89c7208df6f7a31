"""Pictures: the paper, a hand as Prikaz ruke shows it, the Arbitar's evidence and the council's chart, as PNG.

Each module takes the pure values `rules/` computed (a `Paper`, a `Game`, an `ArbitarVerdict`, the statistics)
and returns PNG bytes that are the same for the same input (`draw.encode`); nothing here reads storage or
talks to a platform. The fonts are shipped in `fonts/` with their licence.
"""
