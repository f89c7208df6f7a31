"""The Arbitar: the deterministic program that settles a disputed "odlazak u bulu".

It owns rezon counting (`rezon`), the double-dummy solver (`solver`, backed by the native `_dds` module and
checked against the pure-Python `dds_reference`), the layouts a defender could not see (`layouts`) and the
procedure that judges a fallen defender's claim (`procedure.arbitrate`, answering an `ArbitarVerdict`).
"""
