"""The club's rules as pure Python: cards, game logs, the paper, eligibility, verdicts and the Arbitar.

Nothing in this package performs I/O, touches asyncio or knows about a chat platform.
"""
