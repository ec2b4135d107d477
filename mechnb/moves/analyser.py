"""Label each sentence of an abstract with the moves it makes, from cues, negation and position.

A sentence's score for a move is the sum of its distinct cue weights (hand rules; at most two
derived phrase cues), plus position features: the first sentence leans to ``context`` unless it
speaks in the first person, the last one to ``implication``. A move is made when its score
reaches ``THRESHOLD``; the deciding cue is its strongest one. Sentences that still hold
template slots (``[phenomenon]``) make no move: a blank is not yet a gap.

For English, a learned layer (``mechnb.moves.learned``) then decides from what the rules found,
the sentence's words and its position, with weights fitted on labelled real abstracts; the rules
alone remain available (``method="rules"``) and decide for Chinese.

A move no sentence makes is *missing* (what MECH060 reports) only when the analyser is confident
it is absent: no sentence has even a weak cue for it (``cued_moves``) and, with the learned
layer, every sentence's probability for it stays below the layer's ``absent_below`` bound;
otherwise it is *unsure* (not reported). Sentences with template slots count for nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .cues import DERIVED_WEIGHT, Lexicon, en_ngrams, load_lexicon, zh_ngrams
from .learned import Model, SentenceFacts, features, load_model
from .sentences import Sentence, split_sentences

METHODS = ("learned", "rules")
"""How ``analyse`` decides: the learned layer over the rules (default), or the rules alone."""
THRESHOLD = 1.0
"""Score from which a sentence makes a move."""
MAX_DERIVED = 2
"""Derived cues counted per move and sentence (overlapping n-grams say the same thing)."""
FIRST_CONTEXT_BONUS = 1.0
FIRST_PERSON_CONTEXT_PENALTY = 0.7
LAST_IMPLICATION_BONUS = 0.4
STRONG_GAP = 1.8
"""Weight from which a gap cue ("remains unclear", "has not been shown") still counts in a
sentence where the paper speaks for itself; weaker ones there name the gap being closed."""
KEY_CLAIM_RULES = frozenset(("we show that … (key claim)", "we show that (structural claim)"))
"""Rules that read "we show/find that …" as a mechanism claim only because a claim follows."""
KEY_CLAIM_ONLY = 1.15
"""A mechanism score up to this, decided by a key-claim rule, comes from those rules alone; in a
sentence that makes a stronger validation, the claim is the evidence and no mechanism is made."""
NEGATION_WINDOW = {"en": 60, "zh": 8}
"""Characters before a negatable cue searched for a negation, within the same clause."""

_MATH = re.compile(r"\$\$.*?\$\$|(?<!\\)\$(?:\\.|[^$\\])+?\$|\\\(.*?\\\)|\\\[.*?\\\]", re.S)
_CITE = re.compile(r"\\cite[a-zA-Z]*\*?(?:\[[^\]]*\])*\{[^{}]*\}|\[[^\[\]\n]*@[^\[\]\n]*\]")
_REF = re.compile(r"\\[a-zA-Z]*ref\*?\{[^{}]*\}")
_COMMAND = re.compile(r"\\[a-zA-Z]+\*?(?:\{([^{}]*)\})?")
_EMPHASIS = re.compile(r"(?<!\w)[*_]{1,3}|[*_]{1,3}(?!\w)|`")
_SPACE = re.compile(r"\s+")
_SLOT = re.compile(r"(?<![A-Za-z0-9_\\!^`])\[(?![@\s])[A-Za-z\u3400-\u9fff]"
                   r"[^\[\]\n\d\\$@=]{0,80}\](?![({])")
"""A template blank such as ``[phenomenon]`` or ``[视角]`` (not ``[0, 1]``, ``[@key]``, links)."""
_FIRST_PERSON = re.compile(r"\b(?:we|our|us)\b|\bthis (?:paper|work|study)\b|本文|我们")
_CLAUSE_BREAK = re.compile(r"[,;:，；：]|\bbut\b|\bwhile\b|\bwhereas\b|但|而")
_CJK = re.compile(r"[\u3400-\u9fff]")
_PROOF = re.compile(
    r"\b(?:we (?:also |then |further |formally |rigorously )?(?:prove|proved)|(?:is|are|be) "
    r"(?:formally |rigorously )?proven|provabl[ey]|proofs?|"
    r"we [^.;!?]{0,120}?\b(?:and|then) (?:also |formally |rigorously )?(?:prove|proved)|"
    r"(?:lower|upper|tight|matching) bounds?|bounded (?:from )?(?:below|above))\b|"
    r"(?:我们|本文)(?:严格)?证明|(?:严格|形式化)证明|"
    r"(?:匹配|紧)的?(?:上|下)界",
    re.IGNORECASE)
"""A statement of a proof or a bound: the validation by proof (DESIGN: a claim is validated by a
proof or by an experiment), which the labelled abstracts mark contribution or mechanism. The
authors' proof may be a verb joined to an earlier one ("we study … and prove that …"); a bound
may be stated as a verb ("… is bounded below by …")."""

_OTHERS = re.compile(
    r"^\s*(?:however|yet|but|despite|although|still|nevertheless|while)\b|"
    r"\b(?:prior|previous|earlier|existing|recent|past|classical|known) (?:\w+ )?"
    r"(?:work|works|studies|research|results?|literature|papers?|analys[ie]s)\b|"
    r"\b(?:has|have) (?:\w+ )?been (?:proven|proved|shown)\b|\bno (?:\w+ )?(?:result|work|study)\b|"
    r"\bcite\b|(?:已有|现有|先前|此前|以往)(?:的)?(?:工作|研究|结果|文献)",
    re.IGNORECASE)
"""Marks of a sentence about others' work (with no first person): a contrast opening, prior
work named, a perfect passive ("has been proven"), "no result", a citation."""

_CONTRAST_START = re.compile(r"^(?:however|yet|but|despite|although|still|然而|但|却|不过)")
OPENING_CONTEXT = 3
"""Sentences from the start that may be read as context when nothing else is said (see analyse)."""


@dataclass(frozen=True, slots=True)
class Cue:
    """Why a sentence makes a move: its score and the cue that decided it."""

    move: str
    score: float
    cue: str
    """The words of the sentence that matched (normalised: lower case, math as ``math``)."""
    rule: str
    """The hand rule's name, or ``phrase:<id>`` for a cue derived from the phrase library."""

    def to_json(self) -> dict[str, Any]:
        """``{"move", "score", "cue", "rule"}``."""
        return {"move": self.move, "score": round(self.score, 2), "cue": self.cue,
                "rule": self.rule}


@dataclass(frozen=True, slots=True)
class LabelledSentence:
    """A sentence and the moves it makes (strongest first)."""

    sentence: Sentence
    moves: tuple[str, ...]
    cues: tuple[Cue, ...]
    """One cue per move made, in the order of ``moves``."""
    template: tuple[str, ...] = ()
    """Moves the sentence would make if its template slots were filled in."""

    @property
    def text(self) -> str:
        """The sentence text."""
        return self.sentence.text

    @property
    def primary(self) -> str | None:
        """The move with the highest score, if any."""
        return self.moves[0] if self.moves else None

    def to_json(self) -> dict[str, Any]:
        """``{"text", "moves", "cues"}``."""
        return {"text": self.text, "moves": list(self.moves),
                "cues": [c.to_json() for c in self.cues]}


@dataclass(frozen=True)
class Analysis:
    """The moves of a whole text: per sentence, missing, and in which order they come."""

    lang: str
    sentences: tuple[LabelledSentence, ...]
    moves: tuple[str, ...]
    """Every move of the vocabulary, in the usual order."""
    missing: tuple[str, ...] = ()
    """Moves the text does not make, as far as the analyser can be sure (MECH060 reports them)."""
    order: tuple[str, ...] = ()
    """Moves in the order their first sentence (by its primary move) appears."""
    out_of_order: tuple[tuple[str, str, int], ...] = field(default=())
    """``(move, earlier_expected_after, sentence)``: ``move`` first comes at ``sentence``,
    after ``earlier_expected_after`` which usually follows it."""
    unsure: tuple[str, ...] = ()
    """Moves no sentence makes clearly, but that one sentence may make: not reported missing."""
    presence: dict[str, float] = field(default_factory=dict)
    """Per move no sentence makes (English, learned layer): the probability that the abstract
    as a whole still makes it (``Model.presence_probability``); below the move's bound it is
    missing. For ``make bench``'s trade-off curve."""

    @property
    def templated(self) -> tuple[str, ...]:
        """Missing moves that a sentence with unfilled template slots would make."""
        made = {m for s in self.sentences for m in s.template}
        return tuple(m for m in self.missing if m in made)

    def weakly(self, move: str) -> tuple[int, ...]:
        """The sentences (0-based) tagged with ``move`` although it is reported missing: the
        learned layer reads them as making it only weakly, and the abstract as a whole (its
        presence model) does not make it. Empty unless ``move`` is in ``missing``."""
        if move not in self.missing:
            return ()
        return tuple(i for i, s in enumerate(self.sentences) if move in s.moves)

    def weak_note(self, move: str) -> str:
        """``"sentence 4 reads as one only weakly"`` (or ``""``): why a tagged move is still
        reported missing, in the words MECH060 and the views use."""
        found = self.weakly(move)
        if not found:
            return ""
        which = ", ".join(str(i + 1) for i in found)
        many = len(found) > 1
        return (f"sentence{'s' if many else ''} {which} read{'' if many else 's'} as one only "
                "weakly, and the abstract as a whole does not make it")

    def to_json(self) -> dict[str, Any]:
        """``{"sentences": […], "missing": […], "order": […]}`` (the CLI's JSON)."""
        return {"sentences": [s.to_json() for s in self.sentences],
                "missing": list(self.missing), "order": list(self.order)}


def states_proof(texts: Iterable[str]) -> bool:
    """Does one of ``texts`` say that the paper proves something, or gives a lower, upper or
    tight bound? An abstract that does is never reported without a validation: a theory paper
    validates its claims by proof, and the abstract says so in its result sentence. A proof the
    paper only reports of others ("in recent studies, transformers are proven to …", "however,
    … are provably …", "no prior result derives tight bounds") is background, not its own:
    a sentence without the first person that names prior work or opens with a contrast."""
    return any(_PROOF.search(t) and (_FIRST_PERSON.search(t.lower()) or not _OTHERS.search(t))
               for t in texts)


def normalise(text: str) -> str:
    """Lower-case prose for cue matching: math → ``math``, citations → ``cite``, no markup."""
    text = _MATH.sub(" math ", text)
    text = _CITE.sub(" cite ", text)
    text = _REF.sub(" ref ", text)
    text = _COMMAND.sub(lambda m: f" {m.group(1) or ''} ", text)
    text = _EMPHASIS.sub("", text)
    return _SPACE.sub(" ", text).strip().lower()


def has_slots(text: str) -> bool:
    """Does the sentence still hold a template blank such as ``[phenomenon]``? (It makes no
    move, and is left out when deciding whether a move is missing.)"""
    return bool(_SLOT.search(text))


def detect_lang(text: str) -> str:
    """``zh`` when a fair share of the letters are Chinese, else ``en``."""
    cjk = len(_CJK.findall(text))
    latin = len(re.findall(r"[A-Za-z]", text))
    return "zh" if cjk and cjk * 3 >= latin else "en"


def _negated(lex: Lexicon, norm: str, at: int) -> bool:
    for lang, pattern in lex.negation.items():
        window = norm[max(0, at - NEGATION_WINDOW[lang]):at]
        breaks = list(_CLAUSE_BREAK.finditer(window))
        if breaks:
            window = window[breaks[-1].end():]
        if pattern.search(window):
            return True
    return False


def rule_hits(norm: str, lex: Lexicon | None = None) -> list[tuple[str, float, str, str]]:
    """``(move, weight, matched words, rule name)`` for every cue that fires in one normalised
    sentence: hand rules (not when negated), then at most ``MAX_DERIVED`` derived cues per move."""
    lex = lex or load_lexicon()
    hits: list[tuple[str, float, str, str]] = []
    for rule in lex.rules:
        for m in rule.pattern.finditer(norm):
            if rule.negatable and _negated(lex, norm, m.start()):
                continue
            hits.append((rule.move, rule.weight, m.group(0).strip(), rule.name))
            break
    derived: dict[str, list[tuple[str, str]]] = {}
    for gram in en_ngrams(norm):
        if gram in lex.derived_en:
            move, pid = lex.derived_en[gram]
            derived.setdefault(move, []).append((gram, f"phrase:{pid}"))
    if _CJK.search(norm):
        for gram in zh_ngrams(norm):
            if gram in lex.derived_zh:
                move, pid = lex.derived_zh[gram]
                derived.setdefault(move, []).append((gram, f"phrase:{pid}"))
    for move, found in derived.items():
        found.sort(key=lambda h: (-len(h[0]), h[0]))  # longest n-grams first
        kept: list[tuple[str, str]] = []
        for gram, name in found:
            if len(kept) < MAX_DERIVED and not any(gram in k for k, _ in kept):
                kept.append((gram, name))
        hits.extend((move, DERIVED_WEIGHT, gram, name) for gram, name in kept)
    return hits


def score_sentence(norm: str, lex: Lexicon | None = None) -> dict[str, tuple[float, Cue]]:
    """Move → (score, deciding cue) for one normalised sentence, before position features."""
    return _scores(rule_hits(norm, lex))


def _scores(hits: list[tuple[str, float, str, str]]) -> dict[str, tuple[float, Cue]]:
    """Move → (summed weight, strongest cue) of a sentence's ``rule_hits``."""
    by_move: dict[str, list[tuple[float, str, str]]] = {}
    for move, weight, cue, name in hits:
        by_move.setdefault(move, []).append((weight, cue, name))
    out: dict[str, tuple[float, Cue]] = {}
    for move, found in by_move.items():
        found.sort(key=lambda h: -h[0])
        total = sum(h[0] for h in found)
        _, cue, name = found[0]
        out[move] = (total, Cue(move, total, cue, name))
    return out


def label(sentence: Sentence, facts: SentenceFacts, index: int, count: int, lex: Lexicon
          ) -> LabelledSentence:
    """The moves one sentence makes by the rules alone, given what the rules found in it
    (``facts``; its ``rule_moves`` are not read) and its position ``index`` among ``count``."""
    raw = _scores(list(facts.hits))
    scores = {m: s for m, (s, _) in raw.items()}
    cues = {m: c for m, (_, c) in raw.items()}
    first_person = facts.first_person
    if index == 0 and not first_person:
        scores["context"] = scores.get("context", 0.0) + FIRST_CONTEXT_BONUS
        cues.setdefault("context", Cue("context", 0.0, "", "first sentence"))
    if first_person and "context" in scores:
        scores["context"] -= FIRST_PERSON_CONTEXT_PENALTY
    if index == count - 1 and count >= 3 and "implication" in scores:
        scores["implication"] += LAST_IMPLICATION_BONUS
    made = sorted((m for m, s in scores.items() if s >= THRESHOLD),
                  key=lambda m: (-scores[m], lex.moves.index(m)))
    if first_person and "contribution" in made and "gap" in made:
        # "we solve the open problem", "unlike prior work, we …": the gap is being closed.
        weight = max((r.weight for r in lex.rules if r.name == cues["gap"].rule), default=0.0)
        if weight < STRONG_GAP:
            made.remove("gap")
    if "mechanism" in made and "validation" in made \
            and cues["mechanism"].rule in KEY_CLAIM_RULES \
            and scores["mechanism"] <= KEY_CLAIM_ONLY < scores["validation"]:
        # "empirically, we find that X outperforms Y": the claim is the evidence itself.
        made.remove("mechanism")
    decided = tuple(Cue(m, scores[m], cues[m].cue, cues[m].rule) for m in made)
    if _SLOT.search(sentence.text):
        return LabelledSentence(sentence, (), (), tuple(made))
    return LabelledSentence(sentence, tuple(made), decided)


ORDER_CONFIDENCE = 0.5
"""A sentence takes part in judging the order of moves only when its main move's score reaches
this: a weak cue ("trained model" read as a gap) does not make a sentence out of order."""


def _sure_primary(s: LabelledSentence) -> str | None:
    """The sentence's main move when its score is at least ``ORDER_CONFIDENCE``."""
    if s.primary is None:
        return None
    score = max((c.score for c in s.cues if c.move == s.primary), default=0.0)
    return s.primary if score >= ORDER_CONFIDENCE else None


def _sure_moves(s: LabelledSentence) -> tuple[str, ...]:
    """Every move the sentence makes with a score of at least ``ORDER_CONFIDENCE``."""
    return tuple(c.move for c in s.cues if c.score >= ORDER_CONFIDENCE)


def move_order(primaries: list[str | None], moves: tuple[str, ...],
               made: Sequence[Iterable[str]] | None = None
               ) -> tuple[tuple[str, ...], tuple[tuple[str, str, int], ...]]:
    """The moves in the order they first appear (by each unit's main move), and each move that
    first appears after one that usually follows it: ``(move, the later move it follows, at)``.
    ``made``: per unit, every move it surely makes besides its main one; a move already made
    there (a result sentence that also states the mechanism) does not first appear later."""
    first: dict[str, int] = {}
    for i, primary in enumerate(primaries):
        if primary is not None:
            first.setdefault(primary, i)
    order = tuple(sorted(first, key=lambda m: first[m]))
    appears = dict(first)
    for i, found in enumerate(made or ()):
        for m in found:
            if m in appears:
                appears[m] = min(appears[m], i)
    late: list[tuple[str, str, int]] = []
    for move in order:
        rank = moves.index(move)
        before = [m for m in order if first[m] < appears[move] and moves.index(m) > rank]
        if before:
            late.append((move, max(before, key=moves.index), appears[move]))
    return order, tuple(late)


def _opening(labelled: list[LabelledSentence], facts: list[SentenceFacts]
             ) -> list[LabelledSentence]:
    """Abstracts open with background: a sentence among the first few that makes no move, does
    not speak in the first person or open with a contrast, and comes before the paper first
    speaks for itself (its first ``contribution``), is read as ``context``."""
    for i, (s, f) in enumerate(zip(labelled[:OPENING_CONTEXT], facts, strict=False)):
        if "contribution" in s.moves:
            break
        if s.moves or s.template or f.first_person or f.contrast:
            continue
        labelled[i] = LabelledSentence(s.sentence, ("context",),
                                       (Cue("context", THRESHOLD, "", "opening sentence"),))
    return labelled


def rule_pass(sentences: list[Sentence], lex: Lexicon | None = None,
              memo: dict[str, tuple[tuple[str, float, str, str], ...]] | None = None
              ) -> tuple[list[LabelledSentence], list[SentenceFacts]]:
    """The rules' labels of ``sentences`` and what the learned layer reads of each. ``memo``
    (normalised sentence → its ``rule_hits`` with ``lex``) spares the refit, which reads each
    sentence once per copy of its abstract, matching every cue again."""
    lex = lex or load_lexicon()
    found: list[SentenceFacts] = []
    for s in sentences:
        norm = normalise(s.text)
        hits = memo.get(norm) if memo is not None else None
        if hits is None:
            hits = tuple(rule_hits(norm, lex))
            if memo is not None:
                memo[norm] = hits
        found.append(SentenceFacts(norm=norm, raw=s.text, hits=hits,
                                   rule_moves=(), first_person=bool(_FIRST_PERSON.search(norm)),
                                   contrast=bool(_CONTRAST_START.search(norm))))
    labelled = _opening([label(s, f, i, len(sentences), lex)
                         for i, (s, f) in enumerate(zip(sentences, found, strict=True))], found)
    facts = [replace(f, rule_moves=s.moves or s.template)
             for f, s in zip(found, labelled, strict=True)]
    return labelled, facts


def sentence_roles(model: Model, facts: list[SentenceFacts]) -> list[dict[str, float]] | None:
    """Each sentence's CSAbstruct role probabilities when the layer reads them (the role
    weights are loaded here, on first use)."""
    if not model.uses_roles:
        return None
    from .roles import load_roles

    roles = load_roles()
    return roles.probabilities([f.norm for f in facts]) if roles is not None else None


def _learned(model: Model, labelled: list[LabelledSentence], facts: list[SentenceFacts],
             moves: tuple[str, ...], roles: list[dict[str, float]] | None
             ) -> tuple[list[LabelledSentence], list[dict[str, float]], list[dict[str, float]]]:
    """Each sentence's moves decided by the learned layer, and its probability of each move;
    the cue shown for a move is the strongest hand rule or phrase cue for it, else the word
    that weighs most towards it."""
    out: list[LabelledSentence] = []
    every: list[dict[str, float]] = []
    all_feats: list[dict[str, float]] = []
    for i, (s, f) in enumerate(zip(labelled, facts, strict=True)):
        feats = features(facts, i, roles)
        all_feats.append(feats)
        probs = model.probabilities(feats)
        every.append(probs)
        made = sorted((m for m, p in probs.items() if p >= model.thresholds[m]),
                      key=lambda m: (-probs[m], moves.index(m)))
        cues: list[Cue] = []
        for m in made:
            best = max((h for h in f.hits if h[0] == m), key=lambda h: h[1], default=None)
            if best is not None:
                cues.append(Cue(m, probs[m], best[2], best[3]))
                continue
            word = model.strongest_word(m, feats)
            cues.append(Cue(m, probs[m], word or "", "learned" if word else "learned: position"))
        if _SLOT.search(s.text):  # a template: the moves either reading says it would make
            out.append(LabelledSentence(s.sentence, (), (), tuple(
                made + [m for m in s.template if m not in made])))
        else:
            out.append(LabelledSentence(s.sentence, tuple(made), tuple(cues)))
    return out, every, all_feats


def cued_moves(ruled: LabelledSentence, facts: SentenceFacts) -> frozenset[str]:
    """The moves a sentence has any evidence for in the rules: a cue fires for it (hand rule
    or phrase n-gram, however weak), the rules alone make it (position included), or — for
    ``contribution`` — the paper speaks in the first person ("we …", 本文, 我们)."""
    found = frozenset(ruled.moves) | {h[0] for h in facts.hits}
    return found | {"contribution"} if facts.first_person else found


def _confident(missing: tuple[str, ...], learned: list[LabelledSentence],
               ruled: list[LabelledSentence], facts: list[SentenceFacts],
               probs: list[dict[str, float]] | None, model: Model | None,
               roles: list[dict[str, float]] | None, feats: list[dict[str, float]],
               presence: dict[str, float] | None = None
               ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``missing`` (moves no sentence makes) split into those the analyser is sure are absent
    and the unsure rest. Sure: a sentence that still has template slots would make it (fill
    them in), or no sentence without slots has a cue for it (``cued_moves``) and, with the
    learned layer (``probs``), every one's probability stays below the move's bound."""
    live = [i for i, s in enumerate(learned) if not has_slots(s.text)]
    templated = {m for s in learned for m in s.template}
    cued = [cued_moves(ruled[i], facts[i]) for i in live]

    def absent(move: str) -> bool:
        if move in templated:
            return True
        if move == "validation" and states_proof(learned[i].text for i in live):
            return False  # validated by proof: at most unsure, never reported missing
        if probs is None or model is None:
            return not any(move in found for found in cued)
        if not live:  # every sentence still has slots: nothing written makes the move
            return True
        args = ([probs[i] for i in live], cued,
                [roles[i] for i in live] if roles is not None else None,
                [feats[i] for i in live] if feats else ())
        if presence is not None and move in model.presence:
            presence[move] = model.presence_probability(move, *args)
        return model.missing(move, *args)

    sure = tuple(m for m in missing if absent(m))
    return sure, tuple(m for m in missing if m not in sure)


def analyse(text: str, lang: str | None = None, method: str = "learned") -> Analysis:
    """Split ``text`` (markdown, English or Chinese) into sentences and label their moves.

    ``method="learned"`` (English): the learned layer (``mechnb.moves.learned``) decides from
    the rules' findings, words and position; ``"rules"``, or Chinese text: the cue rules alone.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    lex = load_lexicon()
    lang = lang or detect_lang(text)
    labelled, facts = rule_pass(split_sentences(text), lex)
    ruled = labelled
    model = load_model() if method == "learned" else None
    probs: list[dict[str, float]] | None = None
    roles: list[dict[str, float]] | None = None
    feats: list[dict[str, float]] = []
    if model is not None and model.lang == lang:
        roles = sentence_roles(model, facts)
        labelled, probs, feats = _learned(model, labelled, facts, lex.moves, roles)
    else:
        model = None
    made = {m for s in labelled for m in s.moves}
    if model is not None and probs is not None:
        # A move only weakly made (``Model.present_above``) is judged by the abstract as a whole.
        live = [probs[i] for i, s in enumerate(labelled) if not has_slots(s.text)]
        made = {m for m in made if model.made_for_sure(m, live)}
    missing = tuple(m for m in lex.moves if m not in made)
    presence: dict[str, float] = {}
    missing, unsure = _confident(missing, labelled, ruled, facts, probs, model, roles, feats,
                                 presence)
    order, late = move_order([_sure_primary(s) for s in labelled], lex.moves,
                             [_sure_moves(s) for s in labelled])
    return Analysis(lang, tuple(labelled), lex.moves, missing, order, late, unsure, presence)
