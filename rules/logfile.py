"""Game-log files as bytes: gzip, the three forms (one document, a JSON array, JSON Lines) and where each problem is.

Pure: this module turns the bytes of one file into decoded JSON values, each with its place in the file (``line
12`` for JSON Lines, ``item 3`` for an array, nothing for a file holding one game), and words every problem with
its place. It does no file I/O; reading files and turning the values into games is the importer's business
(`bot.importer`, with `rules.gamelog` and `rules.validation`).

The work is split so that an import can spread it over processes: `unpack` (gunzip) and `plan` (find the form,
check the sizes, cut JSON Lines into pieces of whole lines) are cheap and run where the file is read; `decode_piece`
(UTF-8 and JSON) runs wherever the games are parsed. `decode` does all of it at once.

Limits, so that neither a huge line nor a gzip bomb can exhaust memory (`Limits`, defaults in `LIMITS`):

* ``text_bytes`` = 128 MiB: the text of one file after gunzip. Inflating stops as soon as the output passes it,
  whatever the compressed size, and the file is refused; the importer reads no more than this from disk either.
* ``document_bytes`` = 32 MiB: a file that is a single JSON value (one game, or an array of games) is decoded
  whole, so it may be at most this big; larger collections are written as JSON Lines.
* ``line_bytes`` = 8 MiB: one line of JSON Lines, i.e. one game. The longest real game (a few hundred hands) is
  well under 1 MiB. A longer line is refused by its length alone, without decoding it.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Literal

from rules.limits import MAX_DEPTH, MAX_DIGITS
from rules.phrases import Phrase, Size
from rules.problems import Key, Place, Problem, Problems, Word, place_order
from rules.strict_json import StrictJsonError, strict_loads

GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\r\n"
_INFLATE_STEP = 1 << 20  # inflate at most this much at a time, checking the limit in between
MiB = 1 << 20

Form = Literal["document", "array", "lines"]


@dataclass(frozen=True, slots=True)
class Limits:
    text_bytes: int = 128 * MiB
    document_bytes: int = 32 * MiB
    line_bytes: int = 8 * MiB


LIMITS = Limits()


class FileProblem(Problems):
    """The file as a whole cannot be read (bad gzip, too big, no games); `problems` says why (`rules.problems`)."""


@dataclass(frozen=True, slots=True)
class Document:
    """One decoded JSON value that should be a game, and where it is in the file."""

    place: Place  # line 12, item 3, or nowhere for a file that holds one document
    value: object


@dataclass(slots=True)
class Decoded:
    documents: list[Document] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # each with its place, e.g. line 3


@dataclass(frozen=True, slots=True)
class Piece:
    """Part of a file's text to decode on its own: whole lines of JSON Lines, or a whole JSON document."""

    form: Form
    text: bytes
    first_line: int = 1  # the line number of the first line of `text` in the file


@dataclass(slots=True)
class Plan:
    form: Form | None
    pieces: list[Piece] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def base_name(name: str) -> str:
    """The file name without a trailing ``.gz``, lower-cased: what its form is guessed from."""
    lowered = name.lower()
    return lowered[:-3] if lowered.endswith(".gz") else lowered


def unpack(data: bytes, name: str = "", limits: Limits = LIMITS) -> bytes:
    """The file's text: gunzipped when it starts with the gzip magic bytes or is named ``.gz``; raises `FileProblem`.

    Inflating is bounded by ``limits.text_bytes``: a gzip bomb is refused after at most that much output.
    """
    if data[:2] == GZIP_MAGIC:
        return _gunzip(data, limits.text_bytes)
    if name.lower().endswith(".gz"):
        raise FileProblem([Problem.of(Key.NOT_GZIP)])
    if len(data) > limits.text_bytes:
        size, size_limit = Size(len(data)), Size(limits.text_bytes)
        raise FileProblem([Problem.of(Key.FILE_TOO_BIG, size=size, size_limit=size_limit)])
    return data


def _gunzip(data: bytes, limit: int) -> bytes:
    out: list[bytes] = []
    total = 0
    rest = data
    member = 0
    while True:
        member += 1
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip header and trailer required
        pending = rest
        try:
            while not inflater.eof:
                chunk = inflater.decompress(pending, _INFLATE_STEP)
                pending = inflater.unconsumed_tail
                if chunk:
                    total += len(chunk)
                    if total > limit:
                        raise FileProblem([Problem.of(Key.GZIP_TOO_BIG, size_limit=Size(limit))])
                    out.append(chunk)
                elif not pending:
                    break
        except zlib.error:
            raise FileProblem([Problem.of(Key.GZIP_DAMAGED)]) from None
        if not inflater.eof:
            raise FileProblem([Problem.of(Key.GZIP_CUT)])
        rest = inflater.unused_data
        if not rest.strip(b"\0"):
            break
        if rest[:2] != GZIP_MAGIC:
            raise FileProblem([Problem.of(Key.GZIP_TRAILING, count=len(rest))])
    return b"".join(out)


def plan(text: bytes, name: str = "", limits: Limits = LIMITS, piece_bytes: int = 4 * MiB) -> Plan:
    """Find the form of a file's text and cut it into pieces for `decode_piece`; size problems are found here.

    An array (the text starts with ``[``) or a single document is one piece. JSON Lines — a ``.jsonl`` name, or
    a first line that is a whole JSON object followed by more lines — is cut at line ends into pieces of about
    `piece_bytes`; a line longer than ``limits.line_bytes`` is reported by its length and left out.
    """
    start = 3 if text.startswith(_BOM) else 0
    body_start = start
    size = len(text)
    while body_start < size and text[body_start] in _WHITESPACE:
        body_start += 1
    if body_start == size:
        return Plan(None, problems=[Problem.of(Key.EMPTY)])
    first = text[body_start]
    if first == ord("["):
        form: Form = "array"
    elif base_name(name).endswith(".jsonl") or _looks_like_lines(text, body_start, limits):
        form = "lines"
    else:
        form = "document"
    if form != "lines":
        if size - start > limits.document_bytes:
            key = Key.ARRAY_TOO_BIG if form == "array" else Key.DOCUMENT_TOO_BIG
            return Plan(
                form,
                problems=[Problem.of(key, size=Size(size - start), size_limit=Size(limits.document_bytes))],
            )
        return Plan(form, [Piece(form, text[start:] if start else text)])
    return _plan_lines(text, start, limits, piece_bytes)


def _looks_like_lines(text: bytes, body_start: int, limits: Limits) -> bool:
    """Several lines, the first of them a whole JSON value on its own: JSON Lines (a pretty-printed game is not)."""
    end = text.find(b"\n", body_start)
    if end < 0 or end - body_start > limits.line_bytes:
        return False
    if not text[end:].strip(_WHITESPACE):
        return False  # one line only: one document
    try:
        json.loads(text[body_start:end])
    except (ValueError, RecursionError):
        return False
    return True


def _plan_lines(text: bytes, start: int, limits: Limits, piece_bytes: int) -> Plan:
    result = Plan("lines")
    size = len(text)
    max_line = limits.line_bytes
    piece_start = start
    piece_line = 1
    line = 1
    pos = start
    while pos < size:
        end = text.find(b"\n", pos)
        if end < 0:
            end = size
        length = end - pos
        if length > max_line:
            if pos > piece_start:
                result.pieces.append(Piece("lines", text[piece_start:pos], piece_line))
            result.problems.append(
                Problem.of(Key.LINE_TOO_LONG, Place(line=line), size=Size(length), size_limit=Size(max_line))
            )
            piece_start = end + 1
            piece_line = line + 1
        elif end + 1 - piece_start >= piece_bytes:
            result.pieces.append(Piece("lines", text[piece_start : end + 1], piece_line))
            piece_start = end + 1
            piece_line = line + 1
        pos = end + 1
        line += 1
    if piece_start < size:
        result.pieces.append(Piece("lines", text[piece_start:], piece_line))
    return result


def decode_piece(piece: Piece) -> Decoded:
    """The JSON values of a piece, each with its place, and every problem (not UTF-8, not JSON, cut short)."""
    if piece.form == "lines":
        return _decode_lines(piece.text, piece.first_line)
    decoded = Decoded()
    try:
        text = piece.text.decode("utf-8")
    except UnicodeDecodeError as exc:
        decoded.problems.append(_not_utf8(piece.text, exc, piece.first_line))
        return decoded
    try:
        value = strict_loads(text)
    except json.JSONDecodeError as exc:
        decoded.problems.append(_not_json(text, exc, exc.lineno + piece.first_line - 1, multiline=True))
        return decoded
    except (RecursionError, ValueError) as exc:
        decoded.problems.append(_unreadable(exc, Place(whole_file=True)))
        return decoded
    if piece.form == "array":
        if not isinstance(value, list):  # pragma: no cover - the text starts with "[", so it is a list
            decoded.problems.append(Problem.of(Key.NOT_ARRAY))
        elif not value:
            decoded.problems.append(Problem.of(Key.ARRAY_EMPTY))
        else:
            decoded.documents = [Document(Place(item=index), item) for index, item in enumerate(value, start=1)]
    else:
        decoded.documents.append(Document(Place(), value))
    return decoded


def _decode_lines(data: bytes, first_line: int) -> Decoded:
    decoded = Decoded()
    documents = decoded.documents
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return _decode_lines_slowly(data, first_line)
    loads = strict_loads
    for number, line in enumerate(lines, start=first_line):
        if not line or line.isspace():
            continue
        try:
            documents.append(Document(Place(line=number), loads(line)))
        except json.JSONDecodeError as exc:
            decoded.problems.append(_not_json(line, exc, number))
        except (RecursionError, ValueError) as exc:
            decoded.problems.append(_unreadable(exc, Place(line=number)))
    return decoded


def _decode_lines_slowly(data: bytes, first_line: int) -> Decoded:
    """Line by line, so that each line that is not UTF-8 is named and the others are still read."""
    decoded = Decoded()
    for number, raw in enumerate(data.split(b"\n"), start=first_line):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            decoded.problems.append(_not_utf8(raw, exc, number))
            continue
        if not line or line.isspace():
            continue
        try:
            decoded.documents.append(Document(Place(line=number), strict_loads(line)))
        except json.JSONDecodeError as exc:
            decoded.problems.append(_not_json(line, exc, number))
        except (RecursionError, ValueError) as exc:
            decoded.problems.append(_unreadable(exc, Place(line=number)))
    return decoded


def _not_utf8(data: bytes, exc: UnicodeDecodeError, first_line: int) -> Problem:
    before = data[: exc.start]
    line = first_line + before.count(b"\n")
    column = exc.start - (before.rfind(b"\n") + 1) + 1
    return Problem.of(Key.NOT_UTF8, Place(line=line, column=column), byte=f"{data[exc.start]:#04x}")


def _unreadable(exc: Exception, place: Place) -> Problem:
    """A JSON text the reader refuses although its syntax is right: a key twice in one object or NUL or a line or
    paragraph separator in a string (rules.strict_json), nested too deep, or a number too long."""
    if isinstance(exc, StrictJsonError):
        if exc.twice is not None:
            return Problem.of(Key.KEY_TWICE, place, path=exc.where, key=exc.twice)
        char = Phrase(_CHARACTERS.get(exc.char, Word.NUL))
        return Problem.of(Key.FORBIDDEN_CHARACTER, place, path=exc.where, char=char, position=exc.position)
    if isinstance(exc, RecursionError):
        return Problem.of(Key.TOO_DEEP, place, limit=MAX_DEPTH)
    return Problem.of(Key.NUMBER_TOO_LONG, place, limit=MAX_DIGITS)


_CHARACTERS = {"U+0000": Word.NUL, "U+2028": Word.LINE_SEPARATOR, "U+2029": Word.PARAGRAPH_SEPARATOR}
_JSON_WHY = {
    "Expecting value": Word.JSON_EXPECTING_VALUE,
    "Expecting ',' delimiter": Word.JSON_EXPECTING_COMMA,
    "Expecting ':' delimiter": Word.JSON_EXPECTING_COLON,
    "Expecting property name enclosed in double quotes": Word.JSON_EXPECTING_NAME,
    "Unterminated string starting at": Word.JSON_UNTERMINATED,
    "Invalid control character at": Word.JSON_CONTROL,
    "Invalid \\escape": Word.JSON_ESCAPE,
    "Invalid \\uXXXX escape": Word.JSON_ESCAPE,
}


def _not_json(text: str, exc: json.JSONDecodeError, line: int, multiline: bool = False) -> Problem:
    place = Place(line=line, column=exc.colno)
    if not text[exc.pos :].strip():
        return Problem.of(Key.CUT_SHORT, place)
    if exc.msg == "Extra data":
        return Problem.of(Key.EXTRA_AFTER_VALUE if multiline else Key.EXTRA_AFTER_GAME, place)
    why = _JSON_WHY.get(exc.msg, Word.JSON_OTHER)
    return Problem.of(Key.NOT_JSON, place, why=Phrase(why), at=repr(text[exc.pos : exc.pos + 20]))


def decode(data: bytes, name: str = "", limits: Limits = LIMITS) -> Decoded:
    """Everything at once: unpack, plan and decode a whole file's bytes. Problems are listed, never raised."""
    try:
        text = unpack(data, name, limits)
    except FileProblem as exc:
        return Decoded(problems=list(exc.problems))
    planned = plan(text, name, limits)
    decoded = Decoded(problems=list(planned.problems))
    for piece in planned.pieces:
        part = decode_piece(piece)
        decoded.documents.extend(part.documents)
        decoded.problems.extend(part.problems)
    decoded.problems.sort(key=place_order)
    return decoded
