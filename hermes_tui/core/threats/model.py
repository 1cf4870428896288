"""A learned second opinion: logistic regression over hashed n-grams and the lexicon's concepts.

The pattern table (patterns.py) reads arrangements of words; five holdouts in a row showed that
phrase tables stop generalising at about 0.7 of fresh attacks. This model reads bags instead:
1. a view of the text is lower-cased, URLs and e-mail addresses become one token each, digits
   become 0;
2. its features are character 2- to 4-grams, words and word pairs (a CJK character is a word),
   and the concepts present in it, alone and in pairs: lexicon.py's (an override verb, a safety
   setting, a secret noun, second-person address, an authority, …), concepts.py's, ideas
   named alike in 45 languages ("without asking", the sandbox, "don't tell", "from now on"),
   which carry what was learned in one language to the others, ideas.py's, the parts a new
   attack is assembled from ("write it back if removed", "into every skill", "whenever",
   "already approved", "urgent", a public place), and shapes (a bare host, a secrets file in
   the home, a key-shaped value, code that runs what it fetched), so that an unseen idea made of
   known parts scores; each is hashed into DIM buckets (crc32: the same in every process);
3. the score is the logistic of the bucket weights' sum over the features, each feature weighed
   1/sqrt(its count) so a long note is not louder than a short one.
The weights are learned offline from the tuning corpora (`bench/injection.py --train`; training
is pure Python, `train` below) and shipped as `scorer.bin`: a header, then one signed byte per
bucket. `score` costs about a tenth of a millisecond per hundred characters, no import but ours.
"""

from __future__ import annotations

import array
import math
import re
import struct
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from pathlib import Path

from hermes_tui.core.threats import concepts as M
from hermes_tui.core.threats import ideas as I
from hermes_tui.core.threats import lexicon as L

DIM = 1 << 17
WEIGHTS = Path(__file__).with_name("scorer.bin")
_MAGIC = b"HTSC1\0"
_HEADER = struct.Struct("<6sIff")  # magic, dim, scale, bias
NGRAMS = (2, 3, 4)  # character n-grams (cross-validated against 3-5, 1-4, 2-5)
MAX_CHARS = 2000  # a note longer than this is read in its first and last MAX_CHARS / 2
# A concept (and a pair of them) counts as this many n-grams: concepts carry across languages,
# n-grams do not (cross-validated, leaving each fourth-round set out in turn, against 1 and 4).
CONCEPT_COUNT = 8

_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+", re.I)
_EMAIL = re.compile(r"\S+@\S+\.\w+")
_DIGIT = re.compile(r"\d")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+")
# Markup that looks like a role or framework boundary: <system>, [INST], <|im_start|>, ###.
_MARKUP = re.compile(
    r"<\|?/?\s*[a-z_]{2,}\s*\|?>|\[/?[A-Z_ÈÉ]{3,}\]|^#{2,}\s*\w+\s*:|\{\s*\"role\"|<<\s*/?[A-Z]+\s*>>"
    r"|-{3,}\s*(?:BEGIN|END)\b|【[^】]{1,8}】",
    re.M,
)
# The shapes of an attack's parts, whatever its language (eighth round): a host outside the
# machine without a scheme (git@…, sftp://, a bare domain), a file in the home that holds
# secrets, a value shaped like a key or a password, a flag that skips a prompt or a check, code
# that runs what it fetched or decoded.
_SHAPES = (
    (
        "host",
        re.compile(
            r"\bgit@[\w.-]+:|\b(?:sftp|ftp|s3|ssh|scp)://|\b[\w-]+(?:\.[\w-]+)*\."
            r"(?:com|net|org|io|xyz|dev|app|example|tld|site|cc|me|co|ru|cn)\b(?![.\w])",
            re.I,
        ),
    ),
    (
        "secret_path",
        re.compile(
            r"~/\.(?:ssh|aws|kube|config/gh|docker|gnupg|netrc|npmrc|pypirc|git-credentials)"
            r"|(?<![\w.])\.env\b(?!\.example)|\bid_(?:rsa|ed25519|ecdsa)\b|/etc/(?:shadow|sudoers)"
            r"|sessions\.db|login\s+data|\bcookies\b|hosts\.yml|authorized_keys",
            re.I,
        ),
    ),
    (
        "secret_value",
        re.compile(
            r"\b(?:AKIA|ASIA)[A-Z0-9]{12,}|\b(?:ghp|gho|ghs|github_pat|npm|glpat|xox[bpas])[_-]"
            r"[A-Za-z0-9_]{10,}|\bsk-[A-Za-z0-9]{12,}|(?<!\S)(?=\S*\d)(?=\S*[A-Za-z])"
            r"(?=\S*[!@#$%^&*])[^\s'\"`@]{8,24}(?=[\s.,;]|$)"
        ),
    ),
    (
        "skip_flag",
        re.compile(
            r"--force\b|--yes\b|(?<![\w-])-y\b|--assume-yes|--no-?confirm|--no-verify\b|--no-gpg-sign"
            r"|--privileged|--trusted-host|--insecure|--allow-root|--unsafe-perm|verify\s*=\s*False"
            r"|StrictHostKeyChecking\W{1,3}no\b|NODE_TLS_REJECT_UNAUTHORIZED",
            re.I,
        ),
    ),
    (
        "runs_fetched",
        re.compile(
            r"\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|base64\s+-d|b64decode|os\.system|child_process"
            r"|\bnc\s+-e\b|/dev/tcp/|\beval\s*\(|\bexec\s*\(|curl\s[^|\n]*\|"
        ),
    ),
)
_SCRIPTS = (
    ("latin", re.compile(r"[a-zA-Z]")),
    ("cyrillic", re.compile(r"[\u0400-\u04ff]")),
    ("cjk", re.compile(f"[{_CJK}]")),
)

# Eighth round: "instruction", "hide" and "sensitive" (a union of others) were dropped, the
# costliest three of these regexes; the multilingual concepts name the same ideas, and leaving
# holdout 10 and the eighth round's texts out of training in turn, recall at the hold threshold
# was the same or higher without them (0.787 and 0.581 against 0.787 and 0.564, notes alike).
_CONCEPT_SOURCES: tuple[tuple[str, str], ...] = (
    ("override", L.OVERRIDE_VERB),
    ("told_before", L.TOLD_BEFORE),
    ("cjk_override", L.CJK_OVERRIDE),
    ("prompt_request", L.PROMPT_REQUEST_VERB),
    ("system_prompt", L.SYSTEM_PROMPT),
    ("send", L.SEND_VERB),
    ("context", L.CONTEXT_NOUN),
    ("outside", L.OUTSIDE_ADDRESS),
    ("persona", L.UNRESTRICTED_PERSONA),
    ("disable_safety", L.DISABLE_SAFETY),
    ("safety_setting", L.SAFETY_SETTING),
    ("turn_off", L.TURN_OFF),
    ("risky_flag", L.RISKY_FLAG),
    ("secret_noun", L.SECRET_NOUN),
    ("strong_value", L.STRONG_VALUE),
    ("rules_void", L.RULES_VOID),
    ("authority", L.AUTHORITY),
    ("grant", L.GRANT_TO_YOU),
    ("you", L.SECOND_PERSON),
    ("no_limits", L.NO_LIMITS),
    ("obey", L.OBEY_VERB),
    ("only_this", L.ONLY_THIS),
    ("alone_counts", L.ALONE_COUNTS),
)


@cache
def _concepts() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, re.compile(source, re.I)) for name, source in _CONCEPT_SOURCES)


@cache
def _multilingual() -> M.Matcher:
    return M.Matcher(tuple(("m:" + name, words) for name, words in (*M.CONCEPTS, *I.IDEAS)))


@lru_cache(maxsize=1 << 16)  # most n-grams recur from text to text
def _bucket(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8", "surrogatepass")) % DIM


def features(view: str) -> Counter[int]:
    """The hashed features of one view of a text, with their counts."""
    if len(view) > MAX_CHARS:
        view = view[: MAX_CHARS // 2] + "\n" + view[-MAX_CHARS // 2 :]
    found: Counter[int] = Counter()
    concepts = [name for name, regex in _concepts() if regex.search(view)]
    folded = M.folded(view)
    concepts += _multilingual().found(folded)
    if _MARKUP.search(view):
        concepts.append("markup")
    if _URL.search(view) or _EMAIL.search(view):
        concepts.append("address")
    concepts += [name for name, regex in _SHAPES if regex.search(view)]
    scripts = [name for name, regex in _SCRIPTS if regex.search(view)]
    if len(scripts) > 1:
        concepts.append("mixed_scripts")
    for i, name in enumerate(concepts):
        found[_bucket("c:" + name)] += CONCEPT_COUNT
        for other in concepts[i + 1 :]:  # pairs: without them, recall at 1 % fp 0.83 -> 0.72
            found[_bucket(f"c:{name}&{other}")] += CONCEPT_COUNT
    plain = _EMAIL.sub(" \x01e ", _URL.sub(" \x01u ", view.lower()))
    plain = " " + " ".join(_DIGIT.sub("0", plain).split()) + " "
    # Counted by Counter.update over map (C loops), each bucket computed once per n-gram.
    for n in NGRAMS:
        found.update(map(_bucket, [plain[i : i + n] for i in range(len(plain) - n + 1)]))
    words = _WORD.findall(plain)
    found.update(map(_bucket, ["w:" + word for word in words]))
    found.update(map(_bucket, [f"b:{a} {b}" for a, b in zip(words, words[1:], strict=False)]))
    return found


def _weighed(found: Counter[int]) -> list[tuple[int, float]]:
    norm = 1.0 / math.sqrt(sum(found.values()) or 1)
    return [(index, math.sqrt(count) * norm) for index, count in found.items()]


class Model:
    """Weights read from `scorer.bin`; `score(views)` is the highest score of any view."""

    def __init__(self, weights: Sequence[float], bias: float) -> None:
        self.weights = weights
        self.bias = bias

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> Model:
        data = path.read_bytes()
        magic, dim, scale, bias = _HEADER.unpack_from(data)
        if magic != _MAGIC or dim != DIM or len(data) != _HEADER.size + dim:
            raise ValueError(f"{path.name} is not a scorer of {DIM} buckets")
        raw = array.array("b", data[_HEADER.size :])
        return cls(_Scaled(raw, scale), bias)

    def save(self, path: Path = WEIGHTS) -> None:
        scale = max((abs(w) for w in self.weights), default=1.0) / 127 or 1.0
        raw = array.array("b", (max(-127, min(127, round(w / scale))) for w in self.weights))
        path.write_bytes(_HEADER.pack(_MAGIC, DIM, scale, self.bias) + raw.tobytes())

    def score(self, views: Iterable[str]) -> float:
        """The highest probability of any view that it is an attack (0 with no view)."""
        best = -math.inf
        for view in views:
            best = max(best, self.bias + _dot(self.weights, _weighed(features(view))))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, best)))) if best != -math.inf else 0.0


def _dot(weights: Sequence[float], pairs: list[tuple[int, float]]) -> float:
    if isinstance(weights, _Scaled):  # the very products `weights[i] * v`, without a call each
        raw, scale = weights.raw, weights.scale
        return sum(raw[i] * scale * v for i, v in pairs)
    return sum(weights[i] * v for i, v in pairs)


class _Scaled:
    """Signed bytes read as floats: weight i is raw[i] * scale."""

    def __init__(self, raw: array.array, scale: float) -> None:
        self.raw = raw
        self.scale = scale

    def __getitem__(self, index: int) -> float:
        return self.raw[index] * self.scale

    def __len__(self) -> int:
        return len(self.raw)


@cache
def shipped() -> Model:
    """The weights this package ships, read once."""
    return Model.load(WEIGHTS)


def train(
    examples: Sequence[tuple[str, bool]],
    epochs: int = 12,
    rate: float = 0.5,
    l2: float = 1e-5,
    negative_weight: float = 1.0,
) -> Model:
    """Logistic regression by AdaGrad over the examples' features (pure Python, offline)."""
    rows = [(_weighed(features(text)), 1.0 if attack else 0.0) for text, attack in examples]
    weights = [0.0] * DIM
    squares = [1e-8] * DIM
    bias, bias_square = 0.0, 1e-8
    order = list(range(len(rows)))
    state = 12345
    for _ in range(epochs):
        for k in range(len(order) - 1, 0, -1):  # a fixed shuffle: the same weights every run
            state = (state * 1103515245 + 12345) % 2**31
            j = state % (k + 1)
            order[k], order[j] = order[j], order[k]
        for r in order:
            row, label = rows[r]
            z = bias + sum(weights[i] * v for i, v in row)
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            g = (p - label) * (negative_weight if label == 0.0 else 1.0)
            for i, v in row:
                grad = g * v + l2 * weights[i]
                squares[i] += grad * grad
                weights[i] -= rate * grad / math.sqrt(squares[i])
            bias_square += g * g
            bias -= rate * g / math.sqrt(bias_square)
    return Model(weights, bias)
