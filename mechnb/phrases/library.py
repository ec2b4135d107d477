"""Loading and validating the phrase library (``mechnb/data/phrases/*.json``, ``data/lenses.json``).

The loader never raises on bad records: it keeps every record it can build and lists the problems
(``Library.problems``), which the tests require to be empty.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..notebook import EXPERIMENT_KINDS
from .index import SearchIndex, build_index, has_cjk
from .model import LANGS, NOT_VERIFIED, Lens, Phrase, Reference, slots_in

if TYPE_CHECKING:
    from importlib.abc import Traversable

ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FUNCTION_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*)*$")
RECORD_KEYS = frozenset({"id", "function", "en", "zh", "slots", "note"})
OPTIONAL_RECORD_KEYS = frozenset({"slots_zh"})
LENS_KEYS = frozenset({"id", "name", "description", "measures", "closing_validation", "phrase",
                       "validation_kind", "references", "pitfalls"})
_BILINGUAL_LENS_KEYS = ("closing_validation", "description", "measures", "name", "phrase",
                        "pitfalls")
REFERENCE_KEYS = frozenset({"key", "type", "authors", "title", "year", "venue", "source"})
OPTIONAL_REFERENCE_KEYS = frozenset({"arxiv", "doi"})
REFERENCE_TYPES = ("article", "inproceedings", "misc", "book")
BIB_KEY_RE = re.compile(r"^[a-z][a-z0-9]*(?:[-:_][a-z0-9]+)*$")
ARXIV_RE = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})$")
DOI_RE = re.compile(r"^10\.\d{4,9}/\S+$")

LENSES_MARKER = "@lenses"
"""In ``index.json``'s file list: where the phrases generated from the lens catalog go."""
_ODD_BRACKETS = ("［", "］", "【", "】")


@dataclass(frozen=True, eq=False)
class Library:
    """Every phrase and lens, in load order, with the problems found while loading."""

    phrases: tuple[Phrase, ...]
    lenses: tuple[Lens, ...]
    required_functions: tuple[str, ...]
    """Function paths DESIGN.md §3 asks the library to cover (from ``index.json``)."""
    problems: tuple[str, ...] = ()
    index: SearchIndex = field(default_factory=SearchIndex, repr=False)

    def get(self, phrase_id: str) -> Phrase | None:
        """The phrase with ``phrase_id``, or ``None``."""
        return next((p for p in self.phrases if p.id == phrase_id), None)


def _data_dir() -> Traversable:
    return resources.files("mechnb").joinpath("data")


def _nonempty_str(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _bilingual_problems(value: object, where: str, what: str) -> list[str]:
    if not isinstance(value, Mapping):
        return [f"{where}: {what} must be an object with 'en' and 'zh'"]
    problems = [f"{where}: {what}.{lang} is missing or empty"
                for lang in LANGS if not _nonempty_str(value.get(lang))]
    zh = value.get("zh")
    if isinstance(zh, str) and zh.strip() and not has_cjk(zh):
        problems.append(f"{where}: {what}.zh has no Chinese text")
    return problems


def _field_problems(rec: Mapping[str, object], keys: AbstractSet[str], where: str,
                    optional: AbstractSet[str] = frozenset()) -> tuple[str, list[str]]:
    """``where`` named after the record's id, and what is wrong with its id and set of fields."""
    rid = rec.get("id")
    if isinstance(rid, str):
        where = f"{where} ({rid})"
    problems = [f"{where}: missing field '{k}'" for k in sorted(keys - rec.keys())]
    problems += [f"{where}: unknown field '{k}'"
                 for k in sorted(rec.keys() - keys - optional)]
    if "id" in rec and not (isinstance(rid, str) and ID_RE.match(rid)):
        problems.append(f"{where}: id must be kebab-case ASCII")
    return where, problems


def record_problems(rec: object, where: str) -> list[str]:
    """What is wrong with one phrase record (empty when it is complete and consistent)."""
    if not isinstance(rec, Mapping):
        return [f"{where}: a record must be a JSON object"]
    where, problems = _field_problems(rec, RECORD_KEYS, where, OPTIONAL_RECORD_KEYS)
    fn = rec.get("function")
    if "function" in rec and not (isinstance(fn, str) and FUNCTION_RE.match(fn)):
        problems.append(f"{where}: function must be a lowercase '/'-separated path")
    texts = {lang: rec.get(lang) for lang in LANGS}
    for lang, text in texts.items():
        if lang in rec and not _nonempty_str(text):
            problems.append(f"{where}: '{lang}' must be a non-empty string")
    en, zh = texts["en"], texts["zh"]
    if isinstance(zh, str) and zh.strip():
        if not has_cjk(zh):
            problems.append(f"{where}: 'zh' has no Chinese text")
        if any(b in zh for b in _ODD_BRACKETS):
            problems.append(f"{where}: 'zh' writes a blank with full-width brackets; use [slot]")
    if isinstance(en, str) and has_cjk(en):
        problems.append(f"{where}: 'en' contains Chinese text")
    slots = rec.get("slots")
    if "slots" in rec:
        problems += _slot_problems(slots, texts["en"], where, "slots", "en")
    if "slots_zh" in rec:
        slots_zh = rec.get("slots_zh")
        problems += _slot_problems(slots_zh, zh, where, "slots_zh", "zh")
        if isinstance(slots_zh, list) and isinstance(slots, list) and len(slots_zh) != len(slots):
            problems.append(f"{where}: slots_zh must pair with slots one to one "
                            f"({len(slots_zh)} names for {len(slots)} blanks)")
    elif "slots" in rec:
        problems += _slot_problems(slots, zh, where, "slots", "zh")
    if "note" in rec:
        problems += _bilingual_problems(rec.get("note"), where, "note")
    return problems


def _slot_problems(slots: object, text: object, where: str, name: str, lang: str) -> list[str]:
    """Whether ``slots`` is a list of distinct names that are exactly the blanks of ``text``."""
    if not (isinstance(slots, list) and all(isinstance(s, str) for s in slots)):
        return [f"{where}: {name} must be a list of strings"]
    if len(set(slots)) != len(slots):
        return [f"{where}: {name} has duplicates"]
    if isinstance(text, str) and set(slots_in(text)) != set(slots):
        return [f"{where}: {name} {sorted(slots)} differ from the blanks of '{lang}' "
                f"{sorted(slots_in(text))}"]
    return []


def lens_problems(rec: object, where: str) -> list[str]:
    """What is wrong with one lens record."""
    if not isinstance(rec, Mapping):
        return [f"{where}: a lens must be a JSON object"]
    where, problems = _field_problems(rec, LENS_KEYS, where)
    for key in _BILINGUAL_LENS_KEYS:
        if key in rec:
            problems += _bilingual_problems(rec[key], where, key)
    if "validation_kind" in rec and rec["validation_kind"] not in EXPERIMENT_KINDS:
        problems.append(f"{where}: validation_kind must be one of {', '.join(EXPERIMENT_KINDS)}")
    refs = rec.get("references")
    if "references" in rec:
        if not (isinstance(refs, list) and refs):
            problems.append(f"{where}: references must be a non-empty list")
        else:
            for n, ref in enumerate(refs):
                problems += reference_problems(ref, f"{where}.references[{n}]")
            if not any(isinstance(r, Mapping) and (r.get("arxiv") or r.get("doi"))
                       and r.get("source") != NOT_VERIFIED for r in refs):
                problems.append(f"{where}: no reference carries an arXiv id or a DOI checked "
                                f"against its page (a source URL)")
    phrase = rec.get("phrase")
    if (isinstance(phrase, Mapping) and all(isinstance(phrase.get(k), str) for k in LANGS)
            and len(slots_in(phrase["en"])) != len(slots_in(phrase["zh"]))):
        problems.append(f"{where}: phrase.en and phrase.zh have different numbers of blanks")
    return problems


def reference_problems(ref: object, where: str) -> list[str]:
    """What is wrong with one reference of a lens."""
    if not isinstance(ref, Mapping):
        return [f"{where}: a reference must be a JSON object"]
    problems = [f"{where}: missing field '{k}'" for k in sorted(REFERENCE_KEYS - ref.keys())]
    problems += [f"{where}: unknown field '{k}'"
                 for k in sorted(ref.keys() - REFERENCE_KEYS - OPTIONAL_REFERENCE_KEYS)]
    key = ref.get("key")
    if "key" in ref and not (isinstance(key, str) and BIB_KEY_RE.match(key)):
        problems.append(f"{where}: key must be a lowercase BibTeX key (wang2023ioi)")
    if "type" in ref and ref["type"] not in REFERENCE_TYPES:
        problems.append(f"{where}: type must be one of {', '.join(REFERENCE_TYPES)}")
    authors = ref.get("authors")
    if "authors" in ref and not (isinstance(authors, list) and authors
                                 and all(_nonempty_str(a) for a in authors)):
        problems.append(f"{where}: authors must be a non-empty list of names")
    for name in ("title", "venue"):
        if name in ref and not _nonempty_str(ref[name]):
            problems.append(f"{where}: {name} must be a non-empty string")
    year = ref.get("year")
    if "year" in ref and not (isinstance(year, int) and 1900 < year < 2100):
        problems.append(f"{where}: year must be a four-digit number")
    arxiv, doi, source = ref.get("arxiv"), ref.get("doi"), ref.get("source")
    if "arxiv" in ref and not (isinstance(arxiv, str) and ARXIV_RE.match(arxiv)):
        problems.append(f"{where}: arxiv must be an arXiv identifier (2211.00593)")
    if "doi" in ref and not (isinstance(doi, str) and DOI_RE.match(doi)):
        problems.append(f"{where}: doi must be a DOI (10.xxxx/…)")
    if "source" in ref and not (source == NOT_VERIFIED or (
            isinstance(source, str) and re.match(r"^https?://\S+$", source))):
        problems.append(f"{where}: source must be the URL the entry was checked against, "
                        f"or '{NOT_VERIFIED}'")
    return problems


def _reference_from(ref: Mapping[str, Any]) -> Reference:
    return Reference(key=ref["key"], type=ref["type"], authors=tuple(ref["authors"]),
                     title=ref["title"], year=ref["year"], venue=ref["venue"],
                     source=ref["source"], arxiv=ref.get("arxiv", ""), doi=ref.get("doi", ""))


def _key_clash_problems(lenses: Iterable[Lens]) -> list[str]:
    """One BibTeX key is one paper: a key used twice must carry the same entry."""
    seen: dict[str, tuple[str, Reference]] = {}
    problems = []
    for lens in lenses:
        for ref in lens.references:
            first = seen.setdefault(ref.key, (lens.id, ref))
            if first[1] != ref:
                problems.append(f"lenses.json ({lens.id}): reference '{ref.key}' differs from "
                                f"the entry of the same key in {first[0]}")
    return problems


def _phrase_from(rec: Mapping[str, Any], source: str) -> Phrase:
    note = rec["note"]
    return Phrase(id=rec["id"], function=rec["function"], en=rec["en"], zh=rec["zh"],
                  slots=tuple(rec["slots"]), note_en=note["en"], note_zh=note["zh"],
                  source=source, slots_zh=tuple(rec.get("slots_zh", ())))


def _read_json(item: Traversable, name: str, problems: list[str]) -> Any:
    try:
        return json.loads(item.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(f"{name}: cannot be read as JSON ({exc})")
        return None


def _load_phrase_file(item: Traversable, name: str, problems: list[str]) -> list[Phrase]:
    raw = _read_json(item, name, problems)
    if raw is None:
        return []
    if not (isinstance(raw, dict) and isinstance(raw.get("entries"), list)):
        problems.append(f"{name}: expected an object {{\"entries\": [...]}}")
        return []
    phrases = []
    for n, rec in enumerate(raw["entries"]):
        found = record_problems(rec, f"{name}[{n}]")
        problems += found
        if not found:
            phrases.append(_phrase_from(rec, name))
    return phrases


def _load_lenses(problems: list[str]) -> list[Lens]:
    raw = _read_json(_data_dir().joinpath("lenses.json"), "lenses.json", problems)
    if not (isinstance(raw, dict) and isinstance(raw.get("lenses"), list)):
        if raw is not None:
            problems.append("lenses.json: expected an object {\"lenses\": [...]}")
        return []
    lenses = []
    for n, rec in enumerate(raw["lenses"]):
        found = lens_problems(rec, f"lenses.json[{n}]")
        problems += found
        if not found:
            lenses.append(Lens(id=rec["id"], name=rec["name"], description=rec["description"],
                               measures=rec["measures"],
                               closing_validation=rec["closing_validation"],
                               phrase=rec["phrase"], validation_kind=rec["validation_kind"],
                               references=tuple(_reference_from(r) for r in rec["references"]),
                               pitfalls=rec["pitfalls"]))
    problems += _key_clash_problems(lenses)
    return lenses


def _duplicate_problems(phrases: Iterable[Phrase]) -> list[str]:
    seen: dict[str, str] = {}
    problems = []
    for p in phrases:
        if p.id in seen:
            problems.append(f"{p.source} ({p.id}): id already used in {seen[p.id]}")
        else:
            seen[p.id] = p.source
    return problems


def library_from_records(records: Iterable[object], *, source: str = "records",
                         lenses: Iterable[Lens] = ()) -> Library:
    """A library built from in-memory records (tests and tools); bad records become problems."""
    problems: list[str] = []
    phrases = []
    for n, rec in enumerate(records):
        found = record_problems(rec, f"{source}[{n}]")
        problems += found
        if not found and isinstance(rec, Mapping):
            phrases.append(_phrase_from(rec, source))
    lens_list = tuple(lenses)
    phrases += [lens.as_phrase() for lens in lens_list]
    problems += _duplicate_problems(phrases)
    return Library(phrases=tuple(phrases), lenses=lens_list, required_functions=(),
                   problems=tuple(problems), index=build_index(phrases))


@cache
def load_library() -> Library:
    """The whole library, loaded once per process (files in ``index.json`` order, then others)."""
    problems: list[str] = []
    folder = _data_dir().joinpath("phrases")
    index_raw = _read_json(folder.joinpath("index.json"), "index.json", problems) or {}
    listed: list[str] = list(index_raw.get("files", []))
    present = sorted(item.name for item in folder.iterdir()
                     if item.name.endswith(".json") and item.name != "index.json")
    order = listed + [name for name in present if name not in listed]
    lenses = _load_lenses(problems)
    phrases: list[Phrase] = []
    for name in order:
        if name == LENSES_MARKER:
            phrases += [lens.as_phrase() for lens in lenses]
        elif name in present:
            phrases += _load_phrase_file(folder.joinpath(name), name, problems)
    if LENSES_MARKER not in order:
        phrases += [lens.as_phrase() for lens in lenses]
    problems += _duplicate_problems(phrases)
    return Library(phrases=tuple(phrases), lenses=tuple(lenses),
                   required_functions=tuple(index_raw.get("required_functions", [])),
                   problems=tuple(problems), index=build_index(phrases))
