"""filter-parallel internals against naive references: text statistics, rules, selection, dedup,
the shard-independent ICD sample, engines, and PHSIC learned through the passes."""

import collections
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kcooc.config import load
from kcooc.engine import ProcessEngine, SerialEngine
from kcooc.errors import KcoocError
from kcooc.filtering import corpus
from kcooc.filtering.config import FilterConfig, RulesConfig, SelectConfig
from kcooc.filtering.job import FilterJob
from kcooc.filtering.patterns import PATTERNS
from kcooc.filtering.rules import CODE, NON_TEXT, PASS, mark_duplicates, rule_reasons
from kcooc.filtering.sampling import Sample, sample_priorities
from kcooc.filtering.select import select
from kcooc.filtering.sentences import SentenceCounts, sentence_keys
from kcooc.filtering.workspace import Workspace
from kcooc.phsic.model import PHSIC
from kcooc.text import LANGUAGE_SCRIPTS, SCRIPT_RANGES, SPACE, TextStats, lowered

from conftest import DATA

EN_JA = f"{DATA}/en-ja.tsv"


def read_en_ja(n=None):
    with open(EN_JA, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][:n]
    return [r[0] for r in rows], [r[1] for r in rows]


SPECIAL = ["", "   ", "tab\x07bell", "bad\ufffdbyte", "emoji 😀 ok", "Ünïcödé wörds", "日本語のテキスト", "ＡＢＣ全角",
           "مرحبا بالعالم", "Привет мир", "a\u00a0b", "\x85next line", "x"]


def naive_stats(sentence, language):
    in_script = lambda c: any(lo <= ord(c) <= hi for s in LANGUAGE_SCRIPTS[language] for lo, hi in SCRIPT_RANGES[s])  # noqa: E731
    bmp = [c for c in sentence if ord(c) < 0x10000]
    control = lambda c: ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c in "\ufffd\ufeff\ufffe"  # noqa: E731
    return (len(sentence), len(sentence.split()), sum(c.isalpha() for c in bmp), sum(map(control, bmp)),
            sum(c.isalpha() and in_script(c) for c in bmp))


@pytest.mark.parametrize("language", ["english", "japanese", "arabic", "cyrillic"])
def test_text_stats_equal_a_per_character_reference(language):
    en, ja = read_en_ja(200)
    sentences = en + ja + SPECIAL
    stats = TextStats(sentences)
    got = list(zip(stats.lengths, stats.words, stats.letters, stats.controls, stats.script_letters(language)))
    assert [tuple(map(int, g)) for g in got] == [naive_stats(s, language) for s in sentences]


def naive_reasons(src, tgt, rules):
    def script_ok(text, language, strip=True):
        _, _, letters, _, in_script = naive_stats(text, language)
        if in_script >= rules.min_script_ratio * letters:
            return True
        return strip and script_ok(NON_TEXT.sub(" ", text), language, strip=False)  # without placeholders and URLs

    reasons = []
    for s, t in zip(src, tgt):
        ns, nt = naive_stats(s, "latin"), naive_stats(t, "latin")
        if rules.empty_side and (not s.split() or not t.split()):
            reasons.append("empty_side")
        elif rules.identical_sides and s.strip().casefold() == t.strip().casefold():
            reasons.append("identical_sides")
        elif rules.max_chars is not None and max(len(s), len(t)) > rules.max_chars:
            reasons.append("too_long")
        elif (rules.length_ratio() is not None
              and max(len(s), len(t)) + 10 > rules.length_ratio() * (min(len(s), len(t)) + 10)):
            reasons.append("length_ratio")
        elif rules.control_chars and (ns[3] or nt[3]):
            reasons.append("control_chars")
        elif rules.src_language and not script_ok(s, rules.src_language):
            reasons.append("src_script")
        elif rules.tgt_language and not script_ok(t, rules.tgt_language):
            reasons.append("tgt_script")
        else:
            reasons.append("pass")
    return [CODE[r] for r in reasons]


@pytest.mark.parametrize("rules", [
    RulesConfig(src_language="english", tgt_language="japanese", max_length_ratio=4.0, max_chars=200),
    RulesConfig(),
    RulesConfig(empty_side=False, identical_sides=False, max_chars=None, max_length_ratio=None, control_chars=False),
])
def test_rules_equal_a_per_pair_reference(rules):
    en, ja = read_en_ja(400)
    src = en + SPECIAL + ["Same text", "ACOSH", "日本語のテキスト"] + en[:20]
    tgt = ja + SPECIAL[::-1] + [" same TEXT ", "ACOSH", "English here"] + en[20:40]
    got = rule_reasons(src, tgt, TextStats(src), TextStats(tgt), rules)
    assert got.tolist() == naive_reasons(src, tgt, rules)
    assert got.dtype == np.uint8


def test_length_ratio_rule_spares_one_word_strings():
    rules = RulesConfig(src_language="english", tgt_language="japanese")  # auto: 8
    src = ["Last Name", "Table of Contents", "The number by which the dividend is divided.", "x" * 200]
    tgt = ["姓", "目次", "割る数", "短い"]
    reasons = rule_reasons(src, tgt, TextStats(src), TextStats(tgt), rules).tolist()
    assert reasons == [PASS, PASS, PASS, CODE["length_ratio"]]  # (44 + 10) / (3 + 10) < 8; (200 + 10) / 12 > 8


def test_script_rule_does_not_count_placeholder_letters():
    rules = RulesConfig(src_language="english", tgt_language="japanese")
    src = ["Column %COLUMNNUMBER", "%PRODUCTNAME Writer Frame", "CR+LF (Windows)", "See https://example.org/a"]
    tgt = ["列 %COLUMNNUMBER", "%PRODUCTNAME Writer 枠", "CR+LF (Microsoft Windows)", "https://example.org/a を参照"]
    reasons = rule_reasons(src, tgt, TextStats(src), TextStats(tgt), rules).tolist()
    assert reasons == [PASS, PASS, CODE["tgt_script"], PASS]


def test_address_and_named_placeholder_searches_try_each_run_once():
    """An address is searched from the start of its run of address characters, a named placeholder's
    name holds no %: a match attempt inside a run fails at once, so a huge word costs linear time (a
    300,000-character Han target kept the script rule busy for minutes when every position of the run
    scanned to its end)."""
    urls, placeholders = PATTERNS["urls"], PATTERNS["placeholders"]
    assert urls.match("ab@example.org", 0).group() == "ab@example.org" and urls.match("ab@example.org", 1) is None
    found = [m.group() for m in urls.finditer("mail a.b+c@example.org, x-y@z.de (see www.example.org)")]
    assert found == ["a.b+c@example.org", "x-y@z.de", "www.example.org"]  # no closing punctuation
    assert [m.group() for m in placeholders.finditer("%(a%(name)s of %(count)d")] == ["%(name)s", "%(count)d"]
    for word in ("中" * 100_000, "a1-" * 30_000 + "@", "%(a" * 30_000 + " )s"):
        assert NON_TEXT.sub(" ", word) == word
    assert NON_TEXT.sub(" ", "x." * 50_000 + "@y.de and %(a)s") == "  and  "
    rules = RulesConfig(src_language="english", tgt_language="latin", max_chars=None)
    src, tgt = ["Open file " * 10_000], ["中" * 100_000]
    assert rule_reasons(src, tgt, TextStats(src), TextStats(tgt), rules).tolist() == [CODE["tgt_script"]]


def naive_select(scores, reasons, cfg, words):
    rows = [i for i in range(len(scores)) if reasons[i] == PASS]
    eligible = len(rows)
    if cfg.threshold is not None:
        rows = [i for i in rows if scores[i] >= cfg.threshold]
    ranked = sorted(rows, key=lambda i: (-scores[i], i))
    if cfg.top_k is not None:
        ranked = ranked[: cfg.top_k]
    elif cfg.top_ratio is not None:
        ranked = ranked[: int(round(cfg.top_ratio * eligible))]
    elif cfg.word_budget is not None:
        total, kept = 0, []
        for i in ranked:
            if total + words[i] > cfg.word_budget:
                break
            total += words[i]
            kept.append(i)
        ranked = kept
    return sorted(ranked)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=40), st.data())
def test_selection_equals_a_sorted_reference(values, data):
    scores = np.array(values, dtype=float) / 2  # many ties: they must go to the earlier line
    reasons = np.array(data.draw(st.lists(st.sampled_from([0, 0, 0, 1, 3]), min_size=len(values),
                                          max_size=len(values))), dtype=np.uint8)
    words = np.array(data.draw(st.lists(st.integers(0, 5), min_size=len(values), max_size=len(values))), dtype=np.int32)
    mode = data.draw(st.sampled_from(["top_k", "top_ratio", "word_budget", None]))
    value = {"top_k": data.draw(st.integers(0, 50)), "top_ratio": data.draw(st.floats(0.01, 1.0)),
             "word_budget": data.draw(st.integers(0, 60)), None: None}[mode]
    threshold = data.draw(st.sampled_from([None, 0.0, -1.0]))
    cfg = SelectConfig(threshold=threshold, **({mode: value} if mode else {}))
    expected = naive_select(scores, reasons, cfg, words)
    marked = reasons.copy()
    summary = select(scores, marked, cfg, words)
    assert np.flatnonzero(marked == PASS).tolist() == expected
    assert summary["kept"] == len(expected) and summary["eligible"] == int((reasons == PASS).sum())
    assert set(np.unique(marked[reasons != PASS])) <= set(np.unique(reasons[reasons != PASS]))


def test_duplicates_keep_the_first_passing_copy():
    hashes = np.array([5, 7, 5, 9, 7, 5, 9], dtype=np.uint64)
    reasons = np.array([1, 0, 0, 0, 0, 0, 0], dtype=np.uint8)  # the first 5 failed a rule
    rows, originals = mark_duplicates(reasons, hashes)
    assert rows.tolist() == [4, 5, 6] and originals.tolist() == [1, 2, 3]  # each copy's first passing twin
    assert reasons.tolist() == [1, 0, 0, 0, CODE["duplicate"], CODE["duplicate"], CODE["duplicate"]]


def test_pair_hashes_equal_their_transcription_and_tell_apart_where_a_pair_is_cut():
    """hashing.pair_hashes against a plain-Python transcription of its definition (FNV-1a over the source's code
    points, splitmix64 of it with the source's length, FNV-1a on over the target's, splitmix64 with its length),
    on pairs with astral characters, empty sides and a newline inside a side."""
    from kcooc.hashing import pair_hashes
    from kcooc.text import TextStats

    mask = (1 << 64) - 1

    def mix(x):
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
        return x ^ (x >> 31)

    def naive(s, t):
        h = 0xCBF29CE484222325
        for c in s:
            h = ((h ^ ord(c)) * 0x100000001B3) & mask
        h = mix(h ^ len(s))
        for c in t:
            h = ((h ^ ord(c)) * 0x100000001B3) & mask
        return mix(h ^ len(t))

    src = ["ab", "a", "ab", "", "x", "Übung 🙂", "line\nbreak", "ab"]
    tgt = ["c", "bc", "c", "", "", "練習 🙂", "", "C"]
    s, t = TextStats(src), TextStats(tgt)
    got = pair_hashes(s.codes, s.lengths, t.codes, t.lengths)
    assert got.dtype == np.uint64 and got.tolist() == [naive(a, b) for a, b in zip(src, tgt)]
    assert got[0] == got[2] and len(set(got.tolist())) == len(src) - 1  # only the repeated pair shares a hash


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=8), st.integers(1, 25), st.integers(0, 3))
def test_icd_sample_does_not_depend_on_how_the_input_is_cut(sizes, limit, seed):
    n = sum(sizes)
    rows = np.arange(n)
    X = rows[:, None].astype(float)
    merged, start = Sample(np.zeros(0, np.uint64), rows[:0], (X[:0], X[:0])), 0
    for size in sizes:
        part = rows[start : start + size]
        merged = merged.merge(Sample(sample_priorities(part, seed), part, (X[part], X[part] * 2)), limit)
        start += size
    priorities = sample_priorities(rows, seed)
    expected = np.sort(np.argsort(priorities)[:limit])
    assert merged.rows.tolist() == expected.tolist()
    assert np.array_equal(merged.columns[0].ravel(), expected.astype(float))


class Square:
    def prepare(self):
        return self


def square(runtime, item):
    return item * item


def test_process_engine_returns_results_in_order():
    items = list(range(40))
    serial = list(SerialEngine().map(square, Square(), items))
    parallel = list(ProcessEngine(2).map(square, Square(), iter(items)))
    assert serial == parallel == [i * i for i in items]


def test_process_engine_stopped_while_its_pool_starts_kills_the_workers(monkeypatch):
    """A SIGTERM that lands while the pool starts its manager thread (Thread.start interrupted) unwinds
    as the signal, not as "cannot join thread before it is started", and the workers are killed."""
    from concurrent.futures import process

    def interrupted_start(thread):
        raise KeyboardInterrupt

    monkeypatch.setattr(process._ExecutorManagerThread, "start", interrupted_start)
    engine = ProcessEngine(2)
    with pytest.raises(KeyboardInterrupt), engine:
        list(engine.map(square, Square(), iter(range(4))))
    workers = list(engine.pool._processes.values())
    assert workers and all(w.exitcode is not None for w in workers)


def job(tmp_path, cfg, path=EN_JA, engine=None):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return FilterJob(cfg, path, engine or SerialEngine(), Workspace(str(work)))


@pytest.mark.parametrize("kernel", ["cos", "rbf"])
def test_phsic_learned_through_the_passes_equals_fit_on_the_passing_pairs(tmp_path, kernel):
    from kcooc.encoders import build_encoder
    from kcooc.filtering.pipeline import fit

    cfg = load(FilterConfig, None, {"encoder.name": "hashing", "encoder.n_features": 64, "kernel.name": kernel,
                                    "kernel.rank": 40, "kernel.sample": None, "task_lines": 300,
                                    "input.block_size": 128, "rules.tgt_language": "japanese"})
    filter_job = job(tmp_path, cfg)
    fitted = fit(filter_job)
    model = fitted.phsic
    reasons = filter_job.work.array("reasons", np.uint8)
    scores = filter_job.score(model, fitted.encoders, reasons).scores
    src, tgt = read_en_ja()
    keep = np.flatnonzero(reasons == PASS)
    assert 1000 < keep.size < len(src)
    encoder = build_encoder({"name": "hashing", "n_features": 64})
    X, Y = encoder.encode([src[i] for i in keep]), encoder.encode([tgt[i] for i in keep])
    reference = PHSIC(kernel, rank=40, seed=cfg.seed).fit(X, Y)
    assert model.moments.n == keep.size
    np.testing.assert_allclose(scores[keep], reference.score(X, Y), rtol=1e-6, atol=1e-9)
    assert np.isnan(scores[reasons != PASS]).all()


def test_an_input_that_changes_between_passes_is_an_error(tmp_path):
    path = tmp_path / "corpus.tsv"
    path.write_text(open(EN_JA, encoding="utf-8").read(), encoding="utf-8")
    cfg = load(FilterConfig, None, {"task_lines": 500})
    filter_job = job(tmp_path, cfg, str(path))
    list(filter_job.tasks("screen"))
    with open(path, "a", encoding="utf-8") as f:
        f.write("new\tline\tx\n")
    with pytest.raises(KcoocError, match="changed while"):
        list(filter_job.tasks("score"))


def test_filter_config_rejects_two_selections_and_unknown_languages():
    with pytest.raises(KcoocError, match="choose one"):
        load(FilterConfig, None, {"select.top_k": 3, "select.top_ratio": 0.5})
    with pytest.raises(KcoocError, match="rules.src_language"):
        load(FilterConfig, None, {"rules.src_language": "klingon"})
    assert dataclasses.asdict(load(FilterConfig, None, {}))["kernel"]["sample"] == 20000


# -- the learned score's features against per-pair references ---------------------------------------
import itertools  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import zlib  # noqa: E402

from kcooc.filtering import features as feat  # noqa: E402
from kcooc.filtering import spelled_numbers as spelled  # noqa: E402
from kcooc.filtering.alignment import DIAGONALS, AlignmentModel  # noqa: E402
from kcooc.filtering.alignment import STEM as ALIGNMENT_STEM  # noqa: E402
from kcooc.filtering.alignment import TOKEN_LIMIT as ALIGNMENT_TOKEN_LIMIT  # noqa: E402
from kcooc.filtering.classifier import PRIORS, PairClassifier  # noqa: E402
from kcooc.filtering.learning import train  # noqa: E402
from kcooc.filtering.mismatch import mismatch_features  # noqa: E402
from kcooc.filtering.noise import (  # noqa: E402
    DEFAULT_NOISE_KINDS,
    MINHASHES,
    NOISE_FAMILIES,
    NOISE_KINDS,
    length_matched_partners,
    similar_partners,
    synthesize,
)
from kcooc.filtering.tokens import KATAKANA_WORDS, token_sequences  # noqa: E402
from kcooc.hashing import mix64  # noqa: E402
from kcooc.text import CJK, SEPARATORS  # noqa: E402

FORMAT_PAIRS = [
    ("Delete %s files (%d left)", "%s 個のファイルを削除 (残り %d)"),
    ("Open {0} in <b>bold</b> &amp; more", "<b>太字</b>で {0} を開く &amp; その他"),
    ("See https://example.org/a?b=1 or mail me@example.com", "https://example.org/a?b=1 を参照"),
    ("Version 2.10, released 2024", "バージョン ２.１０、２０２４年リリース"),
    ("Hello %(name)s, ${HOME} is set", "こんにちは %(name)s"),
    ("The GNU Image Manipulation Program", "GNU 画像編集プログラム"),
    ("Nothing here!", "何もない！"), ("", "空"), ("a", ""),
    ("Saved. Close it now? Yes!", "保存しました。今閉じますか？ はい！"), ("Loading... please wait", "読み込み中…"),
    ('He said "Done." Then left. v1.2 e.g.x', "「完了。」と言った。 ＯＫ．次"), ("A.\u00a0B.\u2003C", "一。\u3000二。"),
    ("Use e.g. this, etc. and 2. lépés. Stb. ok", "Pl. ezt, stb. és ⁂. ÉS! 𝐀"),
]


def excerpt(n=300):
    en, ja = read_en_ja(n)
    return en + [s for s, _ in FORMAT_PAIRS] + SPECIAL, ja + [t for _, t in FORMAT_PAIRS] + SPECIAL[::-1]


def naive_item_list(sentence, kind):
    """Numbers (as ASCII digit strings) or placeholders of a sentence, each as often as it occurs."""
    if kind == "numbers":
        normal = "".join(str(int(c)) if c.isdecimal() and ord(c) < 0x10000 else c for c in sentence)
        return re.findall(r"[0-9]+", re.sub(r"%[0-9]+\$", "%$", normal))  # not the position of %1$s
    return [naive_canonical(m.group()) for m in feat.PATTERNS[kind].finditer(sentence)]


def naive_canonical(placeholder):
    """The argument position (%2$s) and GCC's quote flag (%qs = %<%s%>) and location flag (%+D) do not
    make another placeholder."""
    if placeholder.startswith("%"):
        placeholder = "%" + placeholder[1:].lstrip("0123456789$") if "$" in placeholder[:5] else placeholder
        return "%" + placeholder[1:].lstrip("q+")
    return placeholder


def naive_spelled(sentence):
    """The numbers a sentence spells out, word by word: German compounds by their first number word,
    Han numerals character by character."""
    values = []
    for word in re.findall(r"\w+", sentence.lower()):
        stem = [v for start, v in spelled._STEMS.items() if word.startswith(start)]
        named = [*spelled._WORDS.items(), *enumerate(spelled._MONTHS, start=1), *spelled._BASES.items()]
        values += stem or [v for v, words in named if word in words.split()]
    return values + [spelled._HAN[c] for c in sentence if c in spelled._HAN]


def naive_pair_numbers(s, t):
    """Both sides' numbers (multisets of digit strings), each completed by the numbers it spells out
    and the other side has in digits more often."""
    from collections import Counter

    digits = [Counter(naive_item_list(side, "numbers")) for side in (s, t)]
    completed = []
    for side, (text, other) in enumerate(((s, digits[1]), (t, digits[0]))):
        mine = Counter(digits[side])
        for value, count in Counter(map(str, naive_spelled(text))).items():
            mine[value] += min(count, max(other[value] - digits[side][value], 0))
        completed.append(+mine)  # without the zero counts
    return completed


def naive_items(sentence, kind, other=None):
    if kind == "numbers":
        if other is not None:
            return set(naive_pair_numbers(sentence, other)[0])
        return set(naive_item_list(sentence, kind))
    if kind == "capitals":
        tokens, current = [], ""
        for c in sentence + " ":
            if ord(c) < 0x10000 and SEPARATORS[ord(c)]:
                if current:
                    tokens.append(current)
                current = ""
            else:
                current += c
        return {t for t in tokens[1:] if "A" <= t[0] <= "Z"}
    return set(naive_item_list(sentence, kind))


def naive_pair_features(s, t):
    def agreement(a, b):
        return len(a & b) / len(a | b) if a | b else 1.0

    def punctuation(text):
        return [sum(text.count(c) for c in cls) for cls in feat._PUNCTUATION_CLASSES]

    def ending(text):
        last = text.rstrip()[-1:]
        return next((k for k, cls in enumerate(feat._PUNCTUATION_CLASSES, 1) if last and last in cls), 0)

    def breaks(text):  # marks that end a sentence with more of the text after them
        def space(c):
            return bool(SPACE[min(ord(c), 0xFFFF)])

        count = 0
        for i, c in enumerate(text):
            after, rest = text[i + 1 : i + 2] or "\n", text[i + 1 :]
            more = [r for r in rest if not space(r)]
            if c in ".!?…" and space(after) and more and not (ord(more[0]) < 0x10000 and more[0].islower()):
                count += 1
            elif c in "。！？｡．" and after not in ")]}）」』】〕》〉\"'”’»。！？｡．.!?…" and more:
                count += 1
        return count

    ps, pt = punctuation(s), punctuation(t)
    high = sum(map(max, ps, pt))
    bs, bt = breaks(s), breaks(t)
    return [math.log1p(len(s)), math.log1p(len(t)), math.log1p(len(t)) - math.log1p(len(s)),
            math.log1p(len(t.split())) - math.log1p(len(s.split())),
            agreement(*map(set, naive_pair_numbers(s, t))),
            *[agreement(naive_items(s, k), naive_items(t, k)) for k in feat.AGREEMENT[1:]],
            sum(map(min, ps, pt)) / high if high else 1.0, float(ending(s) == ending(t)),
            (1 + min(bs, bt)) / (1 + max(bs, bt))]


@pytest.mark.parametrize("pair", ["en-ja", "en-de", "en-fr"])
def test_pair_features_equal_a_per_pair_reference(pair):
    src, tgt = excerpt()
    if pair != "en-ja":
        with open(f"{DATA}/{pair}.tsv", encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f]
        src = [r[0] for r in rows] + [s for s, _ in FORMAT_PAIRS] + SPECIAL
        tgt = [r[1] for r in rows] + [t for _, t in FORMAT_PAIRS] + SPECIAL[::-1]
    got = feat.pair_features(src, tgt, TextStats(src), TextStats(tgt))
    expected = np.array([naive_pair_features(s, t) for s, t in zip(src, tgt)])
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    rows = {s: row for s, row in zip(src, got)}
    assert rows["Delete %s files (%d left)"][5] == 1.0 and rows["Version 2.10, released 2024"][4] == 1.0
    assert rows["Hello %(name)s, ${HOME} is set"][5] == 0.5 and rows["The GNU Image Manipulation Program"][7] < 1
    assert rows["Saved. Close it now? Yes!"][10] == 1.0 and rows["Loading... please wait"][10] == 1.0
    assert rows["Use e.g. this, etc. and 2. lépés. Stb. ok"][10] == np.float32(2 / 3)


BAD_LINES = ["Call 555-0100 or ４２ ＡＢＣ", "digits beyond the BMP \U0001d7d9\U0001d7da 12",
             "replaced \ufffd\ufffd bytes Xy",
             "NUL\x00Byte Tab\tCarriage\rReturn Ok", "www.example.org only", "see https://x.org/a_b?c=1 now",
             "mail Root@example.com %1$s %(n)d ${HOME} <b>Bold</b> &amp; {0}", "Über Ärger ÖL 3½ ٣٤ ๕",
             "Zz " * 3000, "\ufffd\ufeff Weird Start", "First Second third Fourth"]


def naive_item_hashes(sentence, kind):
    """Hashes of the naive items, with the real rule for URLs: a sentence without / or @ is not searched."""
    if kind in ("numbers", "capitals"):  # numbers as ASCII digits
        return {naive_hash(item) for item in naive_items(sentence, kind)}
    if kind == "urls" and "/" not in sentence and "@" not in sentence:
        return set()
    return {zlib.crc32(item.encode("utf-8", "surrogatepass")) for item in naive_item_list(sentence, kind)}


@pytest.mark.parametrize("pair", ["en-ja", "en-de"])
def test_item_scan_equals_a_per_sentence_reference_on_real_and_bad_lines(pair):
    src, tgt = excerpt(400)
    if pair == "en-de":
        with open(f"{DATA}/en-de.tsv", encoding="utf-8") as f:
            src = [line.split("\t")[1] for line in f][:400]  # German sides
    sentences = src + tgt + BAD_LINES
    stats = TextStats(sentences)
    for kind in feat.AGREEMENT:
        positions, hashes = feat.matched_items(sentences, stats, kind)
        got = [set() for _ in sentences]
        for position, value in zip(positions.tolist(), hashes.tolist()):
            got[position].add(value)
        assert got == [naive_item_hashes(s, kind) for s in sentences], kind
    agreement = feat.item_agreement(feat.matched_items(sentences, stats, "capitals"),
                                    feat.matched_items(sentences[::-1], TextStats(sentences[::-1]), "capitals"),
                                    len(sentences))
    expected = [len(a & b) / len(a | b) if a | b else 1.0 for a, b in
                zip(*([naive_item_hashes(s, "capitals") for s in side] for side in (sentences, sentences[::-1])))]
    assert agreement.tolist() == expected  # exactly: the same divisions


@pytest.mark.parametrize("pair", ["en-ja", "en-de"])
def test_mismatch_features_equal_a_multiset_reference(pair):
    from collections import Counter

    src, tgt = excerpt()
    if pair == "en-de":
        with open(f"{DATA}/{pair}.tsv", encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f]
        src, tgt = [r[0] for r in rows] + src, [r[1] for r in rows] + tgt
    src, tgt = src + ["%qs and %qs at 1,000", "%s"], tgt + ["%qs und bei 1.000 1.000", ""]
    got = mismatch_features(*feat.pair_items(src, tgt, TextStats(src), TextStats(tgt)), len(src))
    expected = []
    for s, t in zip(src, tgt):
        numbers = naive_pair_numbers(s, t)
        placeholders = [Counter(naive_item_list(side, "placeholders")) for side in (s, t)]
        expected.append([float(a != b) for a, b in (numbers, placeholders)])
    np.testing.assert_array_equal(got, np.array(expected))
    assert got[-2].tolist() == [1, 1] and got[-1].tolist() == [0, 1]
    assert got.sum(axis=0)[0] < got.shape[0] - 2  # most pairs agree


GCC_AND_MARKUP_PAIRS = [  # (source, target, placeholders agree)
    ("-fdoc-inc=<file> Include a Ddoc macro <file>.", "-fdoc-inc=<Datei> Eine Ddoc-Makro-Datei <Datei> inkludieren.",
     True),
    ("don%'t support DSP extension instructions", "Erweiterungsbefehle für DSPs nicht unterstützen", True),
    ("include %qs translated to import", "%<include %s%> wurde übersetzt zu »import«", True),
    ("definition of explicitly-defaulted %q+D", "définition de %qD explicitement par défaut", True),
    ("either -fopenacc or -fopenmp must be set", "entweder %<-fopenacc%> oder %<-fopenmp%> muss angegeben sein", True),
    ("Open <b>bold</b> text", "<b>太字</b>のテキストを開く", True),
    ("Open <b>bold</b> text", "<b>太字のテキストを開く", False),  # a tag dropped
    ("See <ahelp hid=\".\">Cells</ahelp> and <br/>", "<ahelp hid=\".\">セル</ahelp>を参照", False),
    ("Delete %qs", "%qd を削除", False),
    ("File %qs opened at %C is not a module", "Bei %2$C geöffnete Datei %1$qs ist kein Modul", True),
    ("<The NULL inode>", "<Der NULL-Inode>", True),  # words in brackets, no attribute: text to translate
    ("-f, --full-name <full-name> real name", "-f, --full-name <voller Name> Realname", True),
    ("<span style=\"color: red\">(%s)</span>", "(%s)", False),
    ("%BInstall%b the following packages:%n", "%BВстановити%b такі пакунки:%n", True),  # %B bold before a word
    ("%n%nSome files were not downloaded.", "%n%nНе вдалося завантажити деякі файли.", True),
    ("total %16ldK", "загалом %16ld К", True), ("%%Node%-2d:", "%%Вузол%-2d:", True),  # %% escaped
    ("%PRODUCTNAME Writer", "%PRODUCTNAMEの設定", True), ("%PRODUCTNAME Writer", "%PRODUCT Writer", False),
]


@pytest.mark.parametrize("src, tgt, agree", GCC_AND_MARKUP_PAIRS)
def test_placeholders_ignore_gcc_quotes_apostrophes_and_localised_metavariables(src, tgt, agree):
    stats = TextStats([src]), TextStats([tgt])
    assert mismatch_features(*feat.pair_items([src], [tgt], *stats), 1)[0, 1] == (0 if agree else 1)
    assert (feat.pair_features([src], [tgt], *stats)[0, 5] == 1) == agree


@pytest.mark.parametrize("src, tgt, agree", [
    ("(adopted from http://senseis.xmp.net/?WhatIsGo)", "(http://senseis.xmp.net/?WhatIsGo より引用)", True),
    ('Creates an "http://" hyperlink.', "「http://」ハイパーリンクを作成します。", True),
    ("standards of http://www.freedesktop.org/.", "http://www.freedesktop.org/ で定義された標準", True),
    ("See http://a.org/x.", "Siehe http://a.org/y.", False)])
def test_an_address_is_ascii_and_ends_before_punctuation(src, tgt, agree):
    stats = TextStats([src]), TextStats([tgt])
    assert (feat.pair_features([src], [tgt], *stats)[0, feat.PAIR_FEATURES.index("urls")] == 1) == agree


SPELLED_PAIRS = [  # (source, target, numbers mismatch, numbers agreement)
    ("Returns the product of two arrays.", "2つの行列の積を返します。", 0, 1),
    ("Returns the product of two arrays.", "5つの行列の積を返します。", 1, 0),  # a changed digit stays a mismatch
    ("Draw 2D chemical formulas", "二次元化学公式を表示", 0, 1),
    ("stack size must be an exact power of 2", "Stapelgröße muss eine exakte Zweierpotenz sein", 0, 1),
    ("dockapp that displays 3 top processes", "appliquette affichant les trois plus importants processus", 0, 1),
    ("Ignore 'D' in column one in fixed form.", "Ignorer « D » dans la colonne 1 du format fixe.", 0, 1),
    ("one of 3 and 3", "eins von drei und 3", 0, 1),  # one 3 in digits, one spelled
    ("one of 3 and 3", "eins von 3", 1, 1),  # a 3 missing (the sets agree); the word "eins" does not count alone
    ("one of 3 and 3", "eins von 4", 1, 0),
    ("two columns", "zwei Spalten", 0, 1),  # words on both sides: no numbers at all
    ("nginx with 3rd party modules", "nginx mit Drittanbieter-Modulen", 0, 1),
    ("%qs at %L uses %d", "%2$L: %1$qs verwendet %3$d", 0, 1),  # argument positions are no numbers
    ("December", "12月", 0, 1),  # months and bases of counting
    ("April", "5月", 1, 0),
    ("hexadecimal digit expected", "16 進数の数値を想定していました", 0, 1),
    ("Thousands Separator", "1000単位の桁区切り", 0, 1),
    ("3D model viewer for GTK+", "Переглядач тривимірних моделей для GTK+", 0, 1),  # Slavic compounds
    ("A 2D game", "Gra dwuwymiarowa", 0, 1),
]


@pytest.mark.parametrize("src, tgt, mismatch, agreement", SPELLED_PAIRS)
def test_numbers_spelled_on_one_side_agree_with_digits_on_the_other(src, tgt, mismatch, agreement):
    for s, t in ((src, tgt), (tgt, src)):  # either side may spell
        stats = TextStats([s]), TextStats([t])
        assert mismatch_features(*feat.pair_items([s], [t], *stats), 1)[0, 0] == mismatch
        assert feat.pair_features([s], [t], *stats)[0, 4] == agreement


def naive_hash(text):
    h = 0xCBF29CE484222325
    for c in text:
        h = ((h ^ ord(c)) * 0x100000001B3) % 2**64
    h ^= h >> 29
    return ((h * 0xBF58476D1CE4E5B9) % 2**64) >> 32


def naive_token_list(sentence, lower=True, katakana_words=False):
    """Runs of non-separators, each kana or Han character a token of its own; with ``katakana_words`` a run of
    katakana (with the prolonged sound mark) one token, apart from the letters around it."""
    tokens, current, is_katakana = [], "", False
    for c in (sentence.lower() if lower else sentence) + " ":
        separator = ord(c) < 0x10000 and SEPARATORS[ord(c)]
        katakana = katakana_words and ("\u30a1" <= c <= "\u30fa" or c == "\u30fc" or "\uff66" <= c <= "\uff9f")
        cjk = ord(c) < 0x10000 and CJK[ord(c)] and not katakana
        if separator or cjk or (current and katakana != is_katakana):
            if current:
                tokens.append(current)
            current = ""
        if cjk:
            tokens.append(c)
        elif not separator:
            current += c
        is_katakana = katakana
    return tokens


def naive_arguments(sentence):
    """Whether each token of naive_token_list(sentence) follows %, $ or { or starts with a digit 0-9."""
    flags, before, inside = [], "", False
    for c in sentence.lower() + " ":
        token_char = not (ord(c) < 0x10000 and (SEPARATORS[ord(c)] or CJK[ord(c)]))
        if (token_char and not inside) or (ord(c) < 0x10000 and CJK[ord(c)]):
            flags.append(before in "%${" and before != "" or "0" <= c <= "9")
        inside, before = token_char, c
    return flags


def naive_trigrams(sentence, buckets):
    text = sentence.lower() + "\n"
    out = []
    for i in range(len(text) - 2):
        a, b, c = (ord(x) for x in text[i : i + 3])
        trigram, context = mix64(np.uint64(a | b << 21 | c << 42)), mix64(np.uint64(a | b << 21))
        out.append((int(trigram) % buckets, int(context) % buckets))
    return out


def naive_words(sentence, buckets):
    """(previous word, word) ids of a sentence as CorpusCounts counts them: words hashed into
    1 .. buckets - 1, the sentence start 0."""
    words = [naive_hash(token) % (buckets - 1) + 1 for token in naive_token_list(sentence)]
    return list(zip([0] + words[:-1], words))


def naive_stems(sentence, buckets):
    """(previous stem, stem) ids of a sentence's words: each word's first 4 code points, 2 if it starts with a
    Hangul syllable, hashed into 1 .. buckets - 1; 0 the start."""
    stems = [naive_hash(token[:2] if "\uac00" <= token[0] <= "\ud7a3" else token[:4]) % (buckets - 1) + 1
             for token in naive_token_list(sentence)]
    return list(zip([0] + stems[:-1], stems))


def naive_spelling_key(token):
    """(key, had a diacritic) of a word as word_typicality.py's docstring defines them, letter by letter."""
    import unicodedata

    by_hand = {"ß": "s", "ł": "l", "ø": "o", "đ": "d", "æ": "a", "œ": "o", "ı": "i", "ŀ": "l", "ħ": "h", "þ": "t"}
    key, accented = "", False
    for c in token:
        base = c
        if (0xC0 <= ord(c) < 0x250 or 0x1E00 <= ord(c) < 0x1F00) and c.islower():
            base = by_hand.get(c, unicodedata.normalize("NFD", c)[0])
            base = base if base.isascii() and base.isalpha() else c
        accented |= base != c
        key += base if not key or base != key[-1] else ""
    return key, accented


def naive_spelling_pairs(sentence, buckets):
    """The hashed pair of each word's spelling key with the key of the word before it (0 before the first)."""
    keys = [naive_hash(naive_spelling_key(token)[0]) % buckets for token in naive_token_list(sentence)]
    return [naive_bigram(previous, key, buckets) for previous, key in zip([0] + keys[:-1], keys)]


def naive_grams(token, buckets):
    """(hashed id, had a diacritic) of each folded character 4-gram of a word in Latin script as
    word_typicality.py's docstring defines them: the spelling key's letters between the word's start (chr(1))
    and end (chr(2)), a gram with a letter that folded (one of a doubled pair, too) is accented."""
    from kcooc.filtering.word_typicality import GRAM

    if ord(token[0]) >= 0x250:
        return []
    letters = [(chr(1), False)]
    for c in token:
        key, accented = naive_spelling_key(c)
        if key == letters[-1][0]:
            letters[-1] = (key, letters[-1][1] or accented)
        else:
            letters.append((key, accented))
    letters.append((chr(2), False))
    windows = [letters[j : j + GRAM] for j in range(max(len(letters) - GRAM, 0) + 1)]
    return [(naive_hash("".join(c for c, _ in w)) % buckets, any(a for _, a in w)) for w in windows]


def naive_shapes(sentence):
    """(previous shape, shape) of a sentence's words as word_typicality.shape_ids makes them: a capital first
    character, the last two characters lower-cased (one by one; any Han character 一, any katakana ア), hashed
    into 1 .. SHAPE_BUCKETS - 1; 0 the start."""
    from kcooc.filtering.word_typicality import SHAPE_BUCKETS
    from kcooc.text import UPPER

    def script(c):
        han = 0x3400 <= ord(c) <= 0x4DBF or 0x4E00 <= ord(c) <= 0x9FFF or 0xF900 <= ord(c) <= 0xFAFF
        katakana = 0x30A0 <= ord(c) <= 0x30FF or 0xFF66 <= ord(c) <= 0xFF9F
        return "一" if han else "ア" if katakana else c.lower() if len(c.lower()) == 1 else c

    shapes = []
    for token in naive_token_list(sentence, lower=False):
        low = [script(c) for c in token]
        key = int(UPPER[min(ord(token[0]), 0xFFFF)]) | ord(low[-1]) << 1 | (ord(low[-2]) if len(low) > 1 else 0) << 22
        shapes.append(int(mix64(np.uint64(key))) % (SHAPE_BUCKETS - 1) + 1)
    return list(zip([0] + shapes[:-1], shapes))


def naive_bigram(previous, word, buckets):
    return int(mix64(np.uint64(previous * buckets + word))) % buckets


def naive_misdecoded(x):
    """UTF-8 lead bytes read as Latin-1 or cp1252 in ``x``: a lead of two bytes (0xC2-0xDF) before one
    continuation, of three (0xE0-0xEF) before two (damage.py's docstring)."""
    from kcooc.filtering.damage import _CONTINUATION

    x += "\n"
    needed = [1 if 0xC2 <= ord(c) < 0xE0 else 2 if 0xE0 <= ord(c) < 0xF0 else 0 for c in x]
    return sum(k > 0 and all(_CONTINUATION[min(ord(c), 0xFFFF)] for c in x[i + 1 : i + 1 + k]) and i + k < len(x)
               for i, k in enumerate(needed))


def naive_damage(s, t):
    """DAMAGE_FEATURES of one pair, character by character as damage.py's docstring defines them."""
    from kcooc.filtering.damage import _PRIVATE_USE
    from kcooc.text import CONTROL, LETTER, LOWER, SPACE, UPPER

    def table(t, c):
        return bool(t[min(ord(c), 0xFFFF)])

    def glyphs(x):
        count = 0
        for i, c in enumerate(x):
            following = x[i + 1] if i + 1 < len(x) else "\n"
            glyph = (table(CONTROL, c) or table(_PRIVATE_USE, c) or c == "\ufffd") and c != "\t"
            glyph |= c == "\\" and following in "uUxn"
            glyph |= c == "&" and (following == "#" or table(LETTER, following)) and ";" in x[i + 2 : i + 10]
            glyph |= c == " " and (following == " " and i > 0 or following in ",.")
            count += glyph
        return count

    def visible(x):
        return max(sum(not table(SPACE, c) for c in x), 1)

    def glued(x):
        return sum(table(LOWER, a) and table(UPPER, b) for a, b in zip(x, x[1:]))

    def repeats(x):  # repeated bigrams, or the longest run of k tokens followed at once by the same k
        tokens = [naive_hash(token) % (1 << 20) for token in naive_token_list(x)]
        bigrams = list(zip(tokens, tokens[1:]))
        distinct = [("argument", i) if argument else token for i, (token, argument)
                    in enumerate(zip(tokens, naive_arguments(x)))]
        k = max((k for k in range(1, len(tokens) // 2 + 1) for i in range(len(tokens) - 2 * k + 1)
                 if distinct[i : i + k] == distinct[i + k : i + 2 * k]), default=0)
        return max(sum(b in bigrams[:k] for k, b in enumerate(bigrams)) / max(len(bigrams), 1),
                   2 * k / max(len(tokens), 1))

    def stutter(x):  # the longest run of >= 3 code points of tokens with their case repeated with its separators
        spans, start = [], None
        for i, c in enumerate(x + " "):
            split = table(SEPARATORS, c) or table(CJK, c) or (start is not None and table(CJK, x[i - 1]))
            if start is not None and split:
                spans.append((start, i))
                start = None
            if start is None and not table(SEPARATORS, c) and i < len(x):
                start = i
        tokens = [x[a:b] for a, b in spans]
        bounds = [0] + [b for _, b in spans], [a for a, _ in spans] + [len(x)]
        gaps = [x[lo:hi] for lo, hi in zip(*bounds)]  # before each token, then after the last

        def visible(gap):
            return "".join(c for c in gap if not table(SPACE, c))

        def ends_word(gap):  # before the first white space
            return visible(next((gap[:i] for i, c in enumerate(gap) if table(SPACE, c)), gap))

        def starts_word(gap):  # after the last white space
            return visible(next((gap[i + 1 :] for i in range(len(gap) - 1, -1, -1) if table(SPACE, gap[i])), gap))

        k = max((k for k in range(1, len(tokens) // 2 + 1) for i in range(len(tokens) - 2 * k + 1)
                 if tokens[i : i + k] == tokens[i + k : i + 2 * k] and sum(map(len, tokens[i : i + k])) >= 3
                 and visible(gaps[i + k]) == ends_word(gaps[i + 2 * k]) + starts_word(gaps[i])), default=0)
        return 2 * k / max(len(tokens), 1)

    def longest_run(x):
        runs = "".join("a" if table(LETTER, c) else " " for c in x).split()
        return max(map(len, runs), default=0)

    def spaced(x):  # longest run of one-letter words, each after one white-space character
        longest = run = 0
        words = "".join("\n" if table(SPACE, c) else c for c in x).split("\n")
        for word in words:
            run = run + 1 if len(word) == 1 and table(LETTER, word) else 0
            longest = max(longest, run)
        return max(longest - 1, 0)

    def initial(x):
        first = next((c for c in x if table(LETTER, c)), "")
        return 0 if not first else table(UPPER, first) - table(LOWER, first)

    def caps(x):
        upper, lower = sum(table(UPPER, c) for c in x), sum(table(LOWER, c) for c in x)
        return upper / max(upper + lower, 1), upper + lower > 0

    def symbols(x):
        visible = [c for c in x if not table(SPACE, c)]
        return sum(not table(LETTER, c) for c in visible) / max(len(visible), 1)

    def trigrams(x):
        x = x.lower() + "\n"
        return {x[i : i + 3] for i in range(len(x) - 2)}

    (s_caps, s_cased), (t_caps, t_cased) = caps(s), caps(t)
    copied = len(trigrams(t) & trigrams(s)) / max(len(trigrams(t)), 1)
    return [max(glyphs(s) - glyphs(t), 0) / visible(s), max(glyphs(t) - glyphs(s), 0) / visible(t),
            math.log1p(naive_misdecoded(s)), math.log1p(naive_misdecoded(t)), repeats(s), repeats(t),
            max(stutter(s) - stutter(t), 0.0), max(stutter(t) - stutter(s), 0.0),
            math.log1p(max(glued(s) - glued(t), 0)), math.log1p(max(glued(t) - glued(s), 0)),
            math.log1p(longest_run(s)), math.log1p(longest_run(t)),
            math.log1p(spaced(s)), math.log1p(spaced(t)), float(initial(s) * initial(t) >= 0),
            abs(s_caps - t_caps) if s_cased and t_cased else 0.0, abs(symbols(s) - symbols(t)), copied]


def test_damage_features_equal_a_per_pair_reference():
    from kcooc.filtering.damage import damage_features

    src, tgt = excerpt(150)
    damaged = [("Caf\u00c3\u00a9 ouvert", "Cafe open"), ("the the the the file", "die Datei die Datei  ,"),
               ("Domain Domain", "%s: %s %d %d"), ("open a file, a file, for x", "Домен 2 Домен 2"),
               ("Tom &amp; Jerry &x", "; Tom &#38; Jerry \\u00e9"), ("Ã", "\u00e2\u20ac\u2122 x"),
               ("Czech: píše, blíž, Ãš", "í\u2022\u0153 í\u2022"),  # á í lead three bytes; Ã two
               ("a\x07b\ufffdc\ue000", "NOSPACESBETWEENTHEWORDSATALL"), ("", "ok"), ("SHOUTED TEXT", "quiet text"),
               ("x &b", "amp; tail"), ("; 42 % $ ###", "words only"), ("日本語のテキスト", "日本語のテキスト"),
               ("Open a file", "f i c h i e r  o u v r i r"), ("a b", "フ ァ イ ル"), ("file opened", "Datei x y"),
               ("Print Preview Print Preview", "Попередній перегляд друку"), ("Open it. Open it.", "Öffnen."),
               ("-i, --interactive interactive", "-i, --interactive interaktiv"), ("KEY The key", "КЛЮЧ Ключ схеми"),
               ("Alarm - Alarm notifier", "アラーム - アラーム通知"), ("Cell:", "目的セル:目的セル:"),
               ("[ unknown]", "[невідома] [невідома]"), ("by by", "紫紫"), ("C, C++", "C, C++ C, C++"),
               ("the file 𝔸𝔸𝔸 %s %s", "die Datei die Datei Datei 𝔸𝔸𝔸 𝔸𝔸𝔸"),
               ("PDF, HTML from HTML from DocBook", "Package %s is gone. Package %s is gone."),
               ("from %u to %u to", "|ADDR|ADDRの"), ("x  ,;y z ,;y z", "a.b:c d.b:c d"),
               ("Invalid filename in LibreOffice", "UngültigerDateiname in LibreOffice"),  # glued: 1 beyond
               ("ErrorOccurred twiceAgain", "Fehler"),
               ("Unpacking %s ...\\n", "Entpacken von %s ...\\n")]  # the glyphs of both sides: none beyond
    src, tgt = src + [d[0] for d in damaged], tgt + [d[1] for d in damaged]
    buckets = 1 << 20
    got = damage_features(TextStats(src), TextStats(tgt), token_sequences(src, buckets), token_sequences(tgt, buckets),
                          (lowered(src), lowered(tgt)))
    expected = np.array([naive_damage(s, t) for s, t in zip(src, tgt)])
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    assert (expected[-len(damaged):] != 0).any(axis=0).all()  # every feature is exercised
    assert (expected[-len(damaged):] != 1).any(axis=0).all()
    assert got[-1, :2].tolist() == [0, 0] and (got[-len(damaged):, :2] > 0).any(axis=0).all()
    from kcooc.filtering.damage import DAMAGE_FEATURES
    glued = [DAMAGE_FEATURES.index(name) for name in ("glued_src", "glued_tgt")]
    assert got[src.index("Invalid filename in LibreOffice"), glued] == pytest.approx([0, np.log(2)])
    czech = src.index("Czech: píše, blíž, Ãš")  # Czech's í before š or ž is no misdecoded letter; Ãš is one
    assert got[czech, DAMAGE_FEATURES.index("encoding_src")] == pytest.approx(np.log(2))
    assert got[czech, DAMAGE_FEATURES.index("encoding_tgt")] == pytest.approx(np.log(2))


def test_times_in_counts_each_id_of_a_row_as_a_count_by_hand():
    """The leave-one-out lookups count how often each bigram is in its own sentence: a scan of a short row, two
    binary searches of a long one (a row of one bigram 100,000 times, ``<b><b><b>...``, is counted by its bounds,
    not walked once per query: that made one such line take minutes)."""
    rng = np.random.default_rng(0)
    lengths = [0, 1, corpus.SCANNED, corpus.SCANNED + 1, 300, 100_000]
    rows = [rng.integers(0, 5, size=n) for n in lengths[:-2]] + [rng.integers(0, 3, 300), np.full(100_000, 7)]
    row_starts = np.r_[0, np.cumsum([r.size for r in rows])]
    ids = corpus._sorted_rows(row_starts, np.concatenate(rows).astype(np.int64))
    query_rows = np.repeat(np.arange(len(rows)), 9)
    query = rng.integers(0, 9, size=query_rows.size).astype(np.int64)
    query[-9:] = 7  # every query of the long row hits its one run
    expected = [int((rows[r] == q).sum()) for r, q in zip(query_rows, query)]
    assert corpus._times_in(row_starts, ids, query_rows, query).tolist() == expected
    long_row = np.full(100_000, 5, dtype=np.int64)
    assert corpus._times_in(row_starts[-2:] - row_starts[-2], long_row, np.zeros(100_000, np.int64),
                            long_row).tolist() == [100_000] * 100_000


def test_corpus_features_equal_a_per_pair_reference():
    from kcooc.filtering.word_typicality import GRAM, SHAPE_BUCKETS

    src, tgt = excerpt(200)
    spelled = [("The size", "Die GrÃ¶ÃŸe"), ("Open file", "íŒŒì¼ ì—´ê¸°"), ("I/O error", "I/O 오류"),  # misdecoded
               ("Installed", "Geïnstalleerd"), ("Integrated", "Geïntegreerd"), ("Informed", "Geinformeerd"),
               ("It is not valid", "Non è valido"), ("It is not set", "Non è impostato"),
               ("Black and white", "Bianco e nero"), ("It is not empty", "non e vuoto"),
               ("Red and blue", "rosso e blu"),
               ("%s is not supported", "%s unterstützt nicht"), ("%3d%% done", "%3d%% erledigt"),
               ("{0} files", "{0} Dateien 2"), ("$HOME is not set", "$HOME nicht gesetzt"),
               ("The size of the street", "Die Größe der Straße"), ("Size and street", "Größe und Straße"),
               ("The size", "Die Grosse"), ("Window already created", "Fenêtre déjà créée"),
               ("Window", "fenetre deja creee"), ("Source", "źródło"), ("Source", "zrodlo"),
               ("could not open the file", "Datei"), ("open the window", "Fenster"), ("the open could not", "Datei"),
               ("Cannot open file", "ファイルを開けません"), ("Open file", "ファイルを開く"),
               ("file x", "開けませんファイルを"), ("the the file", "die die Datei")]
    # sentences the corpus has more than once: a pair three times, a target with another source, in other case
    repeated = [(src[3], tgt[3])] * 2 + [(src[5], tgt[7]), (src[9].upper(), tgt[9])]
    # words of several tokens: a swap exchanges whole words between spaces ('l'icône' and 'Changer')
    elided = [("Change the icon", "Changer l'icône"), ("Change the icon...", "Changer l'icône..."),
              ("Change the name", "Changer le nom"), ("Change the icon", "l'icône... Changer"),
              ("ping: PING", "ping: PING")]
    spelled = elided + repeated + spelled
    src, tgt = src + [p[0] for p in spelled], tgt + [p[1] for p in spelled]
    fluency, word_buckets = 512, 1024
    counts = corpus.CorpusCounts.count(src, tgt, fluency, word_buckets)
    trigrams, contexts = np.zeros((2, fluency)), np.zeros((2, fluency))
    words, bigrams = np.zeros((2, word_buckets)), np.zeros((2, word_buckets))
    accented, spelling_pairs, accented_pairs = np.zeros((2, word_buckets)), np.zeros((2, word_buckets)), np.zeros(
        (2, word_buckets))
    shapes, shape_bigrams = np.zeros((2, SHAPE_BUCKETS)), np.zeros((2, SHAPE_BUCKETS))
    plain_grams, accented_grams = np.zeros((2, word_buckets)), np.zeros((2, word_buckets))
    stems, stem_bigrams = np.zeros((2, word_buckets)), np.zeros((2, word_buckets))
    for s, t in zip(src, tgt):
        for side, text in enumerate((s, t)):
            for tri, ctx in naive_trigrams(text, fluency):
                trigrams[side, tri] += 1
                contexts[side, ctx] += 1
            pairs = naive_words(text, word_buckets)
            words[side, 0] += bool(pairs)  # the sentences with a word: the first word's context
            for previous, word in pairs:
                words[side, word] += 1
                bigrams[side, naive_bigram(previous, word, word_buckets)] += 1
            if pairs:  # the sentence's end (0) after its last word
                bigrams[side, naive_bigram(pairs[-1][1], 0, word_buckets)] += 1
            shaped = naive_shapes(text)
            shapes[side, 0] += bool(shaped)
            for previous, shape in shaped + [(shape, 0) for _, shape in shaped[-1:]]:
                shapes[side, shape] += bool(shape)
                shape_bigrams[side, naive_bigram(previous, shape, SHAPE_BUCKETS)] += 1
            stemmed = naive_stems(text, word_buckets)
            stems[side, 0] += bool(stemmed)
            for previous, stem in stemmed + [(stem, 0) for _, stem in stemmed[-1:]]:
                stems[side, stem] += bool(stem)
                stem_bigrams[side, naive_bigram(previous, stem, word_buckets)] += 1
            decoded = not naive_misdecoded(text)  # a misdecoded sentence's letters with a diacritic are bytes
            for pair, (key, accented_word) in zip(naive_spelling_pairs(text, word_buckets),
                                                  map(naive_spelling_key, naive_token_list(text))):
                accented[side, naive_hash(key) % word_buckets] += accented_word and decoded
                spelling_pairs[side, pair] += 1
                accented_pairs[side, pair] += accented_word and decoded
            for token in naive_token_list(text):
                for gram, accented_gram in naive_grams(token, word_buckets):
                    (accented_grams if accented_gram and decoded else plain_grams)[side, gram] += 1
    assert np.array_equal(counts.trigrams, trigrams) and np.array_equal(counts.contexts, contexts)
    assert np.array_equal(counts.words, words) and np.array_equal(counts.bigrams, bigrams)
    assert np.array_equal(counts.accented, accented)
    assert np.array_equal(counts.spelling_pairs, spelling_pairs) and np.array_equal(counts.accented_pairs,
                                                                                   accented_pairs)
    assert np.array_equal(counts.shapes, shapes) and np.array_equal(counts.shape_bigrams, shape_bigrams)
    assert np.array_equal(counts.plain_grams, plain_grams) and np.array_equal(counts.accented_grams, accented_grams)
    assert np.array_equal(counts.stems, stems) and np.array_equal(counts.stem_bigrams, stem_bigrams)
    halves = corpus.CorpusCounts.count(src[:77], tgt[:77], fluency, word_buckets).merge(
        corpus.CorpusCounts.count(src[77:], tgt[77:], fluency, word_buckets))
    assert all(np.array_equal(x, y) for x, y in zip(halves.arrays().values(), counts.arrays().values()))

    keys = np.concatenate([sentence_keys(lowered(side), i) for i, side in enumerate((src, tgt))])
    model = corpus.CorpusModel(counts, SentenceCounts.of(keys))
    a, b, prior = model.smoothing, model.interpolation, model.word_prior
    # every sentence scored was counted: its own n-grams are looked up without it, as many times as the corpus
    # has the (lower-cased) sentence on that side
    times = [collections.Counter(text.lower() for text in side) for side in (src, tgt)]

    def without(table, side, index, text):
        return max(table[side, index] - times[side][text.lower()], 0)

    def fluency_score(text, side):
        grams = naive_trigrams(text, fluency)
        if not grams:
            return math.log(1 / model.alphabet)
        return sum(math.log(without(trigrams, side, tri, text) + a) - math.log(without(contexts, side, ctx, text)
                   + a * model.alphabet) for tri, ctx in grams) / len(grams)

    def word_score(text, side):  # CorpusModel's docstring: mean log p(w | v) / p(w) with `prior` words of 0
        total = words[side, 1:].sum()
        log_ratios = []
        for previous, word in naive_words(text, word_buckets):
            unigram = (without(words, side, word, text) + 0.5) / (total + 0.5 * word_buckets)
            bigram = (without(bigrams, side, naive_bigram(previous, word, word_buckets), text) + b * unigram) / (
                without(words, side, previous, text) + b)
            log_ratios.append(math.log(bigram / unigram))
        return sum(log_ratios) / (len(log_ratios) + prior)

    def spelling_score(text, side):  # word_typicality.py: the lowest log share of a word without a diacritic,
        scores = [0.0]                # in the context of the word before it
        for token, pair in zip(naive_token_list(text), naive_spelling_pairs(text, word_buckets)):
            key, accented_word = naive_spelling_key(token)
            accented_word = accented_word and not naive_misdecoded(text)
            count = without(words, side, naive_hash(token) % (word_buckets - 1) + 1, text)
            if not accented_word:  # a word seen nowhere else: the sub-word share of its letters' folded 4-grams
                ratios = [(without(plain_grams, side, gram, text) + 1) / (without(plain_grams, side, gram, text)
                          + accented_grams[side, gram] + 1) for gram, _ in naive_grams(token, word_buckets)]
                letters = len(ratios) + GRAM - 3  # the grams span the word's start, its letters and its end
                sub_word = min([max(r for j, r in enumerate(ratios) if j - 1 <= letter <= j + GRAM - 2)
                                for letter in range(letters)] + [1.0]) if count == 0 and ratios else 1.0
                share = (count + 0.5 * sub_word) / (count + accented[side, naive_hash(key) % word_buckets] + 0.5)
                key_accented = accented[side, naive_hash(key) % word_buckets]
                plain = min(max(without(spelling_pairs, side, pair, text) - accented_pairs[side, pair], 0), count)
                scores.append(math.log((plain + 2 * share) / (plain + min(accented_pairs[side, pair], key_accented)
                                                              + 2)))
        return min(scores)

    def swap_score(text, side):  # word_typicality.py: lowest swap of words plus shapes plus stems over sqrt(words),
        # or rotation
        def log_terms(sequence, unigrams, bigrams_of, buckets):
            """log (c(v w) + d + b p(w)) for any v, w of the sentence ``sequence`` (start, tokens, end: 0 ... 0),
            c without every occurrence the sentence added."""
            grams = collections.Counter(naive_bigram(v, w, buckets) for v, w in zip(sequence, sequence[1:]))
            total = unigrams[side, 1:].sum()

            def log_term(v, w):
                bigram = naive_bigram(v, w, buckets)
                count = max(bigrams_of[side, bigram] - times[side][text.lower()] * grams[bigram], 0)
                unigram = (without(unigrams, side, w, text) if w else unigrams[side, 0]) + 0.5
                return math.log(count + model.order_smoothing + b * unigram / (total + 0.5 * buckets))
            return log_term

        def swap(log_term, sequence, first, k, last):  # u V W x against u W V x: V tokens first .. k - 1, W k .. last
            u, x = sequence[first - 1], sequence[last + 1]
            v, w = sequence[first:k], sequence[k : last + 1]
            return (log_term(u, v[0]) + log_term(v[-1], w[0]) + log_term(w[-1], x)
                    - log_term(u, w[0]) - log_term(w[-1], v[0]) - log_term(v[-1], x))

        sequence = [0] + [word for _, word in naive_words(text, word_buckets)] + [0]
        shaped = [0] + [shape for _, shape in naive_shapes(text)] + [0]
        arguments = naive_arguments(text)
        stemmed = [0] + [stem for _, stem in naive_stems(text, word_buckets)] + [0]
        word_term = log_terms(sequence, words, bigrams, word_buckets)
        shape_term = log_terms(shaped, shapes, shape_bigrams, SHAPE_BUCKETS)
        stem_term = log_terms(stemmed, stems, stem_bigrams, word_buckets)
        values, n = [0.0], len(sequence) - 2
        without_spaces = any(CJK[ord(c)] for c in text if ord(c) < 0x10000)
        if without_spaces:  # rotation of the tokens at the cut before the k-th (1-based): X Y against Y X,
            def rotation(term, tokens, k):  # under the words' model plus the shapes'
                first, last, before, after = tokens[1], tokens[n], tokens[k - 1], tokens[k]
                return (term(0, first) + term(before, after) + term(last, 0)
                        - term(0, after) - term(last, first) - term(before, 0))
            by_shape = [rotation(shape_term, shaped, k) for k in range(2, n + 1)]
            return min(values + [rotation(word_term, sequence, k) for k in range(2, n + 1)]) + min([0.0] + by_shape) / (
                math.sqrt(n))
        spans, at = [], 1  # each word between spaces: the positions of its first and last token in ``sequence``
        for word in text.split():
            if naive_token_list(word):
                spans.append((at, at + len(naive_token_list(word)) - 1))
                at += len(naive_token_list(word))
        for (first, before_last), (k, last) in zip(spans, spans[1:]):
            if sequence[first : k] == sequence[k : last + 1]:  # the same word twice
                continue
            ends = [first, before_last, k, last]
            argument = any(arguments[j - 1] for j in ends)  # a part only where the corpus has the tokens (stems)
            seen = min(without(words, side, sequence[j], text) for j in ends) >= 1 and not argument  # elsewhere,
            stem_seen = min(without(stems, side, stemmed[j], text) for j in ends) >= 1 and not argument  # no argument
            values.append((swap(word_term, sequence, first, k, last) if seen else 0.0)
                          + swap(shape_term, shaped, first, k, last)
                          + (swap(stem_term, stemmed, first, k, last) if stem_seen else 0.0))
        return min(values) / math.sqrt(max(len(spans), 1))

    expected = [[fluency_score(s, 0), fluency_score(t, 1), word_score(s, 0), word_score(t, 1), spelling_score(s, 0),
                 spelling_score(t, 1), swap_score(s, 0), swap_score(t, 1)] for s, t in zip(src, tgt)]
    np.testing.assert_allclose(model.features(src, tgt), np.array(expected), rtol=2e-5, atol=2e-5)
    swapped = [expected[tgt.index(t)][7] for _, t in elided]  # the elided article's word moved with its noun
    assert swapped[3] < -2 and np.abs(swapped[:3] + swapped[4:]).max() < 1e-9  # 'ping: PING': the same word twice
    assert np.ptp(np.array(expected)[:, 2:4]) > 0.5  # the word scores are not all the prior's 0
    # the targets without the diacritics the corpus writes lose spelling typicality; those with them keep 0
    assert (np.array(expected)[[-12, -10, -8], 5] < 0).all() and (np.array(expected)[[-14, -13, -11, -9], 5] == 0).all()
    # ... and a word seen nowhere else the doubt of its parts: 'Geinformeerd' beside 'Geïnstalleerd'
    assert np.array(expected)[tgt.index("Geinformeerd"), 5] <= np.log(0.5) < np.array(expected)[tgt.index(
        "Geïntegreerd"), 5]
    assert np.array(expected)[-5, 6] < 0 and (np.array(expected)[:, 6:] <= 0).all()  # 'the open' is 'open the'
    assert np.array(expected)[-2, 7] < np.array(expected)[-4, 7] - 1  # 開けません|ファイルを is ファイルを|開けません
    # a sentence the corpus has three times is not evidence for itself: left out once only, it looks more fluent
    once, many = corpus.CorpusModel(counts).features(src, tgt), np.array([times[1][t.lower()] for t in tgt])
    assert many[3] == 3 and once[3, 3] > expected[3][3]
    assert once[many > 1, 3].mean() > np.array(expected)[many > 1, 3].mean()
    np.testing.assert_allclose(once[many == 1, 1::2], np.array(expected)[many == 1, 1::2], rtol=2e-5, atol=2e-5)


def test_spelling_reads_a_word_in_the_context_of_the_word_before():
    """Italian writes 'e' (and) and 'è' (is): the plain 'e' is a dropped accent after 'non', which the corpus
    writes 'non è', and the word itself after 'bianco'; without the word before, both looked as doubtful."""
    tgt = ["Non è valido", "Non è impostato", "Il file non è vuoto", "Bianco e nero", "Bianco e rosso", "Bianco e blu",
           "La chiave è scaduta", "Questo è un file"]
    model = corpus.CorpusModel(corpus.CorpusCounts.count(["x"] * len(tgt), tgt, 512, 1 << 16))
    dropped, word, alone, accented = model.features(["x"] * 4, ["Il valore non e valido", "Bianco e verde",
                                                                "Verde e giallo", "Il valore non è valido"])[:, 5]
    # a sentence the corpus was not counted on is looked up as if it had added one of each count (leave-one-out)
    share = (2 + 0.5) / (2 + 5 + 0.5)  # the corpus's words 'e' (3 - 1) against its five 'è'
    assert alone == pytest.approx(np.log(share), rel=1e-5)  # the corpus never has 'verde' before either
    assert word == pytest.approx(np.log((2 + 2 * share) / (2 + 2)), rel=1e-5)  # 'bianco e' (3 - 1), no 'bianco è'
    assert dropped == pytest.approx(np.log(2 * share / (3 + 2)), rel=1e-5)  # three 'non è', no other 'non e'
    assert accented == 0 and dropped < alone - 0.5 < word - 0.5


def test_spelling_of_a_word_seen_nowhere_else_reads_its_parts():
    """Dutch writes 'geïnstalleerd', 'geïntegreerd': a word the corpus never has, written 'geinformeerd', is
    doubted by its first letters, whose folded 4-grams '^gei' and 'gein' the corpus's other words write with a
    diacritic only; 'geopend' (opened), whose parts no word writes with one, keeps 0."""
    tgt = ["Geïnstalleerd", "Bestand geïntegreerd", "Map geïmporteerd", "Bestand geopend", "Gebruiker ingelogd"]
    model = corpus.CorpusModel(corpus.CorpusCounts.count(["x"] * len(tgt), tgt, 512, 1 << 16))
    unseen, known_key, plain, in_context = model.features(["x"] * 4, ["Geinformeerd", "Geimporteerd", "Geopend",
                                                                     "Gebruiker geinformeerd"])[:, 5]
    assert unseen == pytest.approx(np.log(1 / 3), rel=1e-5)  # '^gei' three times with a diacritic, 'gein' twice
    assert in_context == pytest.approx(unseen, rel=1e-5)  # no pair of its keys elsewhere: the share alone
    # the corpus writes the key of 'geimporteerd' once with a diacritic; its parts, once each, halve the prior 1/2
    assert known_key == pytest.approx(np.log(0.5 * 0.5 / (1 + 0.5)), rel=1e-5)
    assert plain == 0


def test_spelling_counts_no_diacritics_in_misdecoded_sentences():
    """Korean whose UTF-8 was read as Latin-1 (``입력`` -> ``ì\x9e\x85ë\xa0¥``) shows a letter with a diacritic
    for each syllable's lead byte: counted as accents, they made every clean ``I/O`` of the corpus a word that
    lost its diacritic. The same letters in a sentence read right still count."""
    from kcooc.filtering.damage import misdecoded_sentences

    clean = ["I/O 오류", "디스크 I/O", "파일을 열 수 없습니다", "I/O 서버 시작"]
    misdecoded = [k.encode().decode("latin-1") for k in ["입력 오류", "이 파일을 읽기", "읽기 오류", "입력 장치",
                                                         "이미지 열기", "인쇄 오류"]]
    letters = [" ".join(c for c in line if "\u00c0" <= c <= "\u024f") for line in misdecoded]  # 'ì ë ì ë'
    assert misdecoded_sentences(misdecoded).all() and not misdecoded_sentences(letters).any()
    scored = ["I/O 서버", "디스크 I/O 오류"]
    spelling = {}
    for name, lines in (("misdecoded", misdecoded), ("letters", letters)):
        tgt = clean + lines
        model = corpus.CorpusModel(corpus.CorpusCounts.count(["x"] * len(tgt), tgt, 512, 1 << 16))
        spelling[name] = model.features(["x"] * 3, scored + lines[:1])[:, 5]
    np.testing.assert_array_equal(spelling["misdecoded"], 0.0)  # the misdecoded line itself is no doubt either
    assert (spelling["letters"][:2] < -1).all()  # 'ì', 'í' counted as accents: 'i' lost one


def test_swaps_see_word_shapes_where_the_words_are_new():
    """A word order the corpus has never seen these words in is still judged by their shapes: German UI
    strings end in a lower-case verb after a capitalised noun, so 'laden Ordner' (swapped) is unlikely and
    'Ordner laden' is not, though the corpus never had 'Ordner'."""
    tgt = ["Datei öffnen", "Fenster schließen", "Bild drucken", "Text kopieren", "Seite laden", "Liste sortieren"]
    model = corpus.CorpusModel(corpus.CorpusCounts.count(["x"] * len(tgt), tgt, 512, 1 << 16))
    swaps = model.features(["x", "x"], ["Ordner laden", "laden Ordner"])[:, 7]
    assert swaps[0] == 0 and swaps[1] < -2


def test_swaps_see_word_stems_where_the_inflected_words_are_new():
    """Korean writes a noun's case as a particle on it (파일을, 파일이: the file as object, as subject): a form the
    corpus never has (파일로) is still placed by its stem, which the corpus puts before 열 (open), so the swapped
    '열 파일로' is misordered far beyond what its words' shapes alone say (-1.3 here), and the right order is 0."""
    tgt = ["파일을 열 수 없습니다", "파일이 없습니다", "폴더를 열 수 없습니다", "창을 닫을 수 없습니다",
           "파일을 저장합니다", "폴더를 저장합니다"] * 3
    model = corpus.CorpusModel(corpus.CorpusCounts.count(["x"] * len(tgt), tgt, 512, 1 << 16))
    swaps = model.features(["x", "x"], ["파일로 열 수 없습니다", "열 파일로 수 없습니다"])[:, 7]
    assert swaps[0] == 0 and swaps[1] < -4


def test_a_swap_with_a_placeholder_or_a_number_counts_the_shapes_only():
    """Where a translation puts an argument follows its message, not the language's order: the corpus writes
    'öffnet %s' and 's' as a word, and 's öffnet' looks swapped while '%s öffnet' and '3 öffnet' are judged by
    their shapes alone."""
    tgt = ["öffnet %s", "lädt %s", "druckt %s", "kopiert %s", "sortiert %s", "öffnet 3", "lädt 3", "s s"] * 3
    model = corpus.CorpusModel(corpus.CorpusCounts.count(["x"] * len(tgt), tgt, 512, 1 << 16))
    swaps = model.features(["x"] * 3, ["s öffnet", "%s öffnet", "3 öffnet"])[:, 7]
    assert swaps[0] < swaps[1] - 1 and swaps[0] < swaps[2] - 1 and (swaps <= 0).all()


def test_a_synthetic_example_is_scored_as_if_it_stood_in_the_corpus_in_its_originals_place():
    """CorpusModel.features with originals: the counts without the original's n-grams equal those of the corpus
    where the example replaced its original (exact for sentences without a repeated n-gram, as here)."""
    src, tgt = excerpt(200)
    original, misordered, source = "Datei fehlt", "fehlt Datei", "File missing"
    for text in (original, misordered, source):  # precondition of exactness: no n-gram twice in a sentence
        grams = naive_trigrams(text, 1 << 30)
        assert len(set(grams)) == len(grams) and len({context for _, context in grams}) == len(grams)
    fluency, word_buckets = 1 << 16, 1 << 16
    counted = corpus.CorpusCounts.count(src + [source], tgt + [original], fluency, word_buckets)
    replaced = corpus.CorpusCounts.count(src + [source], tgt + [misordered], fluency, word_buckets)
    expected = corpus.CorpusModel(replaced).features([source], [misordered])
    synthetic = corpus.CorpusModel(counted).features([source], [misordered],
                                                     ([""], [original], np.array([[True, False]])))
    np.testing.assert_allclose(synthetic, expected, rtol=1e-6, atol=1e-6)
    # looked up beside its original, the misordered target's words look swapped only because the original has them
    beside = corpus.CorpusModel(counted).features([source], [misordered])
    assert beside[0, 7] < -1 and abs(expected[0, 7]) < 1e-6


def test_a_misaligned_target_is_the_next_one_in_length():
    _, tgt = read_en_ja(300)
    partner = length_matched_partners(tgt, seed=3)
    assert sorted(partner) == list(range(300)) and (partner != np.arange(300)).all()  # a derangement
    lengths = np.array([len(t) for t in tgt])
    cycle = [int(np.argmin(lengths))]  # from the shortest, each partner is the next longer (ties: any order)
    while len(cycle) < 300:
        cycle.append(int(partner[cycle[-1]]))
    assert sorted(cycle) == list(range(300)) and (np.diff(lengths[cycle]) >= 0).all()
    assert np.array_equal(length_matched_partners(tgt, seed=3), partner)


def test_synthetic_noise_kinds_are_what_the_docstring_says_and_seeded():
    src, tgt = read_en_ja(20 * len(NOISE_KINDS))
    noisy_src, noisy_tgt, kinds = synthesize(src, tgt, seed=3)
    assert np.bincount(kinds).tolist() == [20] * len(NOISE_KINDS)
    again = synthesize(src, tgt, seed=3)
    assert again[:2] == (noisy_src, noisy_tgt) and np.array_equal(again[2], kinds)
    for i, kind in enumerate(NOISE_KINDS[k] for k in kinds):
        s, t, ns, nt = src[i], tgt[i], noisy_src[i], noisy_tgt[i]
        if kind in ("misaligned", "near_miss"):
            assert ns == s and nt in tgt and nt is not t
        elif kind == "copied_source":
            assert (ns, nt) == (s, s)
        elif kind == "swapped_sides":
            assert (ns, nt) == (t, s)
        elif kind == "untranslated":
            assert (ns == s and nt in src and nt != s) or (nt == t and ns in tgt and ns != t)
        elif kind in ("truncated", "words_dropped"):
            cut = (ns == s) != (nt == t) and len(ns) + len(nt) < len(s) + len(t)
            assert cut or ((ns, nt) == (s, t) and 1 in (len(s), len(t)))  # a side of one unit cannot be cut
        elif kind == "numbers_changed":
            assert ns == s and nt != t and len(nt) >= len(t)
        elif kind == "joined":
            assert (ns == s and nt.startswith(t) and nt[len(t):].strip() in tgt) != (
                nt == t and ns.startswith(s) and ns[len(s):].strip() in src)
        elif kind == "misordered":  # one side's words (characters if it has fewer than three) out of order
            def units(x):
                return sorted(x.split()) if len(x.split()) >= 3 else sorted(x)
            assert (ns == s and nt != t and units(nt) == units(t)) or (nt == t and ns != s and units(ns) == units(s))
        elif kind == "placeholders_changed":
            found, now = ([m.group() for m in feat.PATTERNS["placeholders"].finditer(x)] for x in (t, nt))
            assert ns == s and (not now or sorted(now) != sorted(found)) and (found or now == ["%s"])
        else:
            assert ns == s and nt != t
    assert synthesize(src, tgt, seed=4)[1] != noisy_tgt


def test_noise_kinds_makes_only_the_kinds_named_and_the_config_rejects_others():
    src, tgt = read_en_ja(60)
    every = synthesize(src, tgt, seed=3)
    named = synthesize(src, tgt, seed=3, kinds=list(NOISE_KINDS))
    assert every[:2] == named[:2] and np.array_equal(every[2], named[2])
    noisy_src, noisy_tgt, kinds = synthesize(src, tgt, seed=3, kinds=["copied_source", "swapped_sides"])
    assert np.bincount(kinds).tolist() == [0, 0, 0, 30] + [0] * 6 + [30]
    assert all((ns, nt) in ((s, s), (t, s)) for s, t, ns, nt in zip(src, tgt, noisy_src, noisy_tgt))
    assert load(FilterConfig, None, {"learn.noise_kinds": ["joined"]}).learn.noise_kinds == ["joined"]
    for bad, message in ((["joined", "shuffled"], "unknown kind 'shuffled'"), ([], "no kind")):
        with pytest.raises(KcoocError, match=f"learn.noise_kinds: {message}; the kinds are misaligned, "):
            load(FilterConfig, None, {"learn.noise_kinds": bad})


def naive_stem(token):
    """The alignment's stem of a token: its first 4 characters, its first 2 if it starts with a Hangul syllable."""
    assert ALIGNMENT_STEM == (4, 2)
    return token[:2] if "\uac00" <= token[0] <= "\ud7a3" else token[:4]


STEM_SENTENCES = [  # Japanese katakana words among Latin letters, kanji and hiragana; Korean words with particles,
    # a Latin word with a Hangul suffix, German inflections
    "PDFファイルを開く・フィールド値ｶﾞｲﾄﾞ", "パスワード:%s", "파일을 열 수 없습니다", "파일이 없습니다: %s",
    "audacious용 기본 플러그인", "Größe der Datei ändern"]


def test_token_sequences_equal_a_per_sentence_reference():
    src, tgt = excerpt(100)
    sentences = src + tgt + STEM_SENTENCES
    ids, indptr = token_sequences(sentences, 4096)
    got = [ids[indptr[i] : indptr[i + 1]].tolist() for i in range(len(sentences))]
    assert got == [[naive_hash(t) % 4096 for t in naive_token_list(s)] for s in sentences]
    ids, indptr = token_sequences(sentences, 4096, ALIGNMENT_STEM, KATAKANA_WORDS)
    stems = [ids[indptr[i] : indptr[i + 1]].tolist() for i in range(len(sentences))]
    assert stems == [[naive_hash(naive_stem(t)) % 4096 for t in naive_token_list(s, katakana_words=True)]
                     for s in sentences]
    assert stems[-4][0] == stems[-3][0] != got[-4][0]  # 파일을 and 파일이 (the file as object, as subject): one stem
    assert naive_token_list(STEM_SENTENCES[0], katakana_words=True) == [  # the alignment's words of a Japanese side
        "pdf", "ファイル", "を", "開", "く", "・", "フィールド", "値", "ｶﾞｲﾄﾞ"]
    assert [len(stem) for stem in stems[-6:-4]] == [9, 2]  # (the first sentence, the second: パスワード, %s)


def naive_alignment(src, tgt, buckets):
    """IBM model 1 with fast_align's diagonal prior, EM from uniform tables, pair by pair in Python:
    the tables, lambdas and ALIGNMENT_FEATURES the module docstring defines."""
    p0, limit = AlignmentModel.null_probability, ALIGNMENT_TOKEN_LIMIT

    def cut(m, n):
        longest = max(m, n)
        return (m, n) if longest <= limit else (max(1, m * limit // longest), max(1, n * limit // longest))

    def prior(m, n, j, lam):
        w = [math.exp(-lam * abs((i + 0.5) / m - (j + 0.5) / n)) for i in range(m)]
        return [(1 - p0) * x / sum(w) for x in w]

    def e_step(given, words, table, lam):
        counts, log_likelihood = np.zeros_like(table), 0.0
        for g, w in zip(given, words):
            m, n = cut(len(g), len(w))
            if not m or not n:
                continue
            for j in range(n):
                weights = [p * table[g[i], w[j]] for i, p in enumerate(prior(m, n, j, lam))]
                null = p0 * table[buckets, w[j]]
                total = null + sum(weights)
                log_likelihood += math.log(total)
                counts[buckets, w[j]] += null / total
                for i in range(m):
                    counts[g[i], w[j]] += weights[i] / total
        return counts, log_likelihood

    sequences = [[[naive_hash(naive_stem(t)) % buckets for t in naive_token_list(x, katakana_words=True)] for x in side]
                 for side in (src, tgt)]
    tables, lambdas, denominators = [], [], []
    for conditioning, words in (sequences, sequences[::-1]):
        table, lam = np.full((buckets + 1, buckets), 1 / buckets), 0.0
        for iteration in range(AlignmentModel.iterations):
            counts = e_step(conditioning, words, table, lam)[0] + AlignmentModel.smoothing
            totals = counts.sum(axis=1)
            table = counts / totals[:, None]
            if iteration == 0:
                lam = max(DIAGONALS, key=lambda d: e_step(conditioning, words, table, d)[1])
        tables.append(table)
        lambdas.append(lam)
        denominators.append(totals)

    def viterbi_and_score(given, words, table, lam, totals):
        # the tables were fitted on every pair: each is scored without its own expected link counts
        own = {}
        for j in range(len(words)):
            weights = [p * table[given[i], words[j]] for i, p in enumerate(prior(len(given), len(words), j, lam))]
            total = p0 * table[buckets, words[j]] + sum(weights)
            for i, weight in enumerate(weights):
                own[given[i], words[j]] = own.get((given[i], words[j]), 0.0) + weight / total
                own[given[i]] = own.get(given[i], 0.0) + weight / total
        best, terms = [], []
        for j in range(len(words)):
            weights = [p * max(table[given[i], words[j]] * totals[given[i]] - own[given[i], words[j]],
                               AlignmentModel.smoothing) / (totals[given[i]] - own[given[i]])
                       for i, p in enumerate(prior(len(given), len(words), j, lam))]
            null = p0 * table[buckets, words[j]]
            best.append(int(np.argmax(weights)) if max(weights) > null else -1)
            terms.append((words[j], math.log(null + sum(weights))))
        return best, terms

    rows, terms = [], ([], [])  # each pair's link features; each direction's (pair, word, log p(word | other side))
    for r, (s, t) in enumerate(zip(*sequences)):
        m, n = cut(len(s), len(t))
        ratio = math.log1p(len(t)) - math.log1p(len(s))
        if not m or not n:
            rows.append([0.0, 0.0, math.nan, ratio])
            continue
        s, t = s[:m], t[:n]
        best_t, forward = viterbi_and_score(s, t, tables[0], lambdas[0], denominators[0])
        best_s, reverse = viterbi_and_score(t, s, tables[1], lambdas[1], denominators[1])
        terms[0].extend((r, w, x) for w, x in forward)
        terms[1].extend((r, w, x) for w, x in reverse)
        links = sorted((j, i) for j, i in enumerate(best_t) if i >= 0 and best_s[i] == j)
        crossing = [a[1] > b[1] for a, b in itertools.combinations(links, 2)]  # links in target order
        order = sum(crossing) / len(crossing) if crossing else math.nan
        rows.append([len({i for _, i in links}) / m, len({j for j, _ in links}) / n, order, ratio])

    def relative(direction_terms):  # each pair's mean of its words' log p less the mean over the other pairs' words
        means = []
        for r in range(len(rows)):
            mine = [(w, x) for pair, w, x in direction_terms if pair == r]
            differences = []
            for w, x in mine:
                others = [y for pair, v, y in direction_terms if v == w]
                others.remove(x)  # the pair's own occurrence (every pair was fitted)
                differences.append(x - sum(others) / len(others) if others else 0.0)
            means.append(sum(differences) / len(differences) if differences else 0.0)
        return means

    features = np.column_stack([relative(terms[0]), relative(terms[1]), np.array(rows)])
    return tables, lambdas, features


def test_alignment_model_equals_a_naive_reference():
    src, tgt = excerpt(30)
    model = AlignmentModel.fit(src, tgt, 16)
    tables, lambdas, features = naive_alignment(src, tgt, 16)
    np.testing.assert_allclose(model.forward, tables[0], rtol=1e-5)
    np.testing.assert_allclose(model.reverse, tables[1], rtol=1e-5)
    assert model.diagonals.tolist() == lambdas
    np.testing.assert_allclose(model.features(src, tgt), features, rtol=1e-5, atol=1e-5)
    assert np.nanmax(features[:, 4]) > 0 and np.isnan(features[:, 4]).sum() < len(src) // 2  # order is measured
    again = AlignmentModel.from_arrays(model.arrays())
    assert np.array_equal(again.features(src, tgt), model.features(src, tgt), equal_nan=True)
    for bad in ({"reverse": model.reverse[:-1]}, {"typical": model.typical[:, :, :-1]},
                {"typical": np.where(model.typical > 0, np.nan, model.typical)}, {"forward": -model.forward},
                {"reverse": model.reverse * 0}, {"forward": model.forward + 1}, {"diagonals": np.array([3.0, 0.0])}):
        with pytest.raises(KcoocError):
            AlignmentModel.from_arrays({**model.arrays(), **bad})


def test_only_the_pairs_the_alignment_was_fitted_on_are_scored_without_their_own_counts():
    src, tgt = excerpt(60)
    model = AlignmentModel.fit(src[:30], tgt[:30], 64)
    unfitted = AlignmentModel(model.forward, model.reverse, model.diagonals, model.totals, np.zeros(0, np.uint64),
                              model.typical)
    fitted_rows, new_rows = model.features(src[:30], tgt[:30]), model.features(src[30:], tgt[30:])
    assert np.array_equal(new_rows, unfitted.features(src[30:], tgt[30:]), equal_nan=True)
    plain = unfitted.features(src[:30], tgt[:30])
    # a pair's own co-occurrences no longer vouch for it: its words explain each other less
    assert np.mean(fitted_rows[:, :2] < plain[:, :2] - .01) > .5 and np.all(fitted_rows[:, 5] == plain[:, 5])


def test_similar_partners_share_a_minhash_of_their_sources():
    src, tgt = read_en_ja(300)
    src, tgt = src + ["same words here", "same words here too"], tgt + ["a", "b"]
    fallback = np.roll(np.arange(len(src)), 1)
    partner = similar_partners(src, tgt, fallback, seed=5)
    assert np.array_equal(partner, similar_partners(src, tgt, fallback, seed=5))
    assert partner[-2] == len(src) - 1 and partner[-1] == len(src) - 2

    def signatures(sentence):  # naive MinHash of the in-order token hashes
        hashes = [naive_hash(token) % (1 << 30) for token in naive_token_list(sentence)]
        return [min(int(mix64(np.uint64(h) ^ mix64(np.uint64(k + 1)))) for h in hashes) if hashes else None
                for k in range(MINHASHES)]

    shared = 0
    for i, j in enumerate(partner):
        assert j != i
        if j != fallback[i]:
            assert src[j] != src[i] and tgt[j] != tgt[i]
            assert any(a == b is not None for a, b in zip(signatures(src[i]), signatures(src[j])))
            shared += 1
    assert shared > len(src) // 3


def naive_monotone(model, row):
    """m(x) of monotone.py's docstring for one row, in plain Python from the fitted parameters."""
    orientation = model.orientation.tolist()
    signs = [o or 1 for o in orientation]
    o = [model.medians_[j] if math.isnan(x) else x * signs[j] for j, x in enumerate(row)]
    weights, k, total = model.weights_.tolist(), 0, model.intercept_
    for j in range(len(row)):
        e = model.edges_[model.edge_offsets_[j] : model.edge_offsets_[j + 1]]
        for q in range(len(e) - 1):
            ramp = (o[j] - e[q]) / (e[q + 1] - e[q])
            ramp = min(ramp, 1.0) if q == 0 and orientation[j] else min(max(ramp, 0.0), 1.0)
            total, k = total + weights[k] * ramp, k + 1
    oriented = [j for j in range(len(row)) if orientation[j]]
    u = [min(max((o[j] - model.low_[i]) / model.span_[i], 0.0), 1.0) for i, j in enumerate(oriented)]
    v = min(max((o[model.length] - model.length_low_) / model.length_span_, 0.0), 1.0)
    for a, b in itertools.combinations(range(len(u)), 2):
        total, k = total + weights[k] * u[a] * u[b], k + 1
    for factor in (v, 1 - v):
        for a in range(len(u)):
            total, k = total + weights[k] * u[a] * factor, k + 1
    assert k == len(weights)
    return total


def test_monotone_logistic_equals_its_formula_is_optimal_and_never_rewards_disagreement():
    from kcooc.filtering.monotone import MonotoneLogistic

    rng = np.random.default_rng(0)
    n = 600
    X = np.column_stack([rng.normal(0, 1, n), rng.exponential(1, n), rng.uniform(1, 5, n), rng.normal(0, 1, n)])
    clean = X[:, 0] - X[:, 1] + 0.5 * X[:, 3] * X[:, 2] / 3 + 0.5 * rng.normal(size=n) > 0
    orientation = np.array([1, -1, 0, 1])  # alignment-like, mismatch-like, a length, another agreement
    model = MonotoneLogistic(orientation, length=2, regularization=1.0).fit(X, clean)
    rows = np.vstack([X[:40], [[np.nan, 0.5, 3.0, 0.0], [-9.0, 9.0, 0.5, -9.0], [9.0, -1.0, 9.0, 9.0]]])
    np.testing.assert_allclose(model.decision_function(rows), [naive_monotone(model, r) for r in rows], atol=1e-9)
    assert model.decision_function(rows[[-2]])[0] < model.decision_function(X).min()  # no floor below the sample
    # the optimum of the bounded problem (Karush-Kuhn-Tucker): free weights have zero gradient, weights at
    # their bound 0 a gradient that pushes them below it
    D = model.design(X)
    p = 1 / (1 + np.exp(-(D @ model.weights_ + model.intercept_)))
    gradient = D.T @ (p - clean) / n + model.weights_ / (model.regularization * n)
    curves = np.repeat(np.arange(4), np.diff(model.edge_offsets_) - 1)
    bounded = np.r_[orientation[curves] != 0, np.ones(D.shape[1] - curves.size, dtype=bool)]
    assert (model.weights_[bounded] >= 0).all() and abs(np.mean(p - clean)) < 1e-5
    at_bound = bounded & (model.weights_ == 0)
    assert (np.abs(gradient[~at_bound]) < 1e-5).all() and (gradient[at_bound] > -1e-5).all()
    assert at_bound.any() and (~at_bound & bounded).any()  # both cases are exercised
    # monotone: making any oriented input cleaner, with the others fixed anywhere, never lowers m
    steps = np.linspace(-6, 6, 49)
    for j in (0, 1, 3):
        grid = np.repeat(rows, steps.size, axis=0)
        grid[:, j] = np.tile(steps * orientation[j], len(rows))
        m = model.decision_function(grid).reshape(len(rows), steps.size)
        assert (np.diff(m, axis=1) >= -1e-12).all()
    # losses: exactly the rise of m with one input set to the reference's value
    reference = np.median(X[clean], axis=0)
    losses = model.losses(rows, reference)
    for i, j in enumerate((0, 1, 3)):
        replaced = rows.copy()
        replaced[:, j] = reference[j]
        np.testing.assert_allclose(losses[:, i], model.decision_function(replaced) - model.decision_function(rows),
                                   atol=1e-9)
    params, arrays = model.state()
    assert np.array_equal(MonotoneLogistic.from_state(params, arrays).decision_function(rows),
                          model.decision_function(rows))
    with pytest.raises(KcoocError, match="do not fit together"):
        MonotoneLogistic.from_state(params, {**arrays, "weights": arrays["weights"][:-1]})


def test_typicality_is_the_share_of_the_sample_at_most_as_clean():
    from kcooc.filtering.typicality import Typicality

    rng = np.random.default_rng(4)
    X = np.column_stack([rng.normal(size=2000), rng.exponential(size=2000), rng.normal(size=2000)])
    shares = np.array([0.05, 0.2])  # one a_j per oriented input
    typical = Typicality(np.array([1, -1, 0]), shares=shares, weight=0.5).fit(X)
    rows = np.vstack([X[:300], [[-10.0, 10.0, 0.0], [np.nan, 0.1, 0.0]]])
    got = typical.log_factors(rows)
    assert got.shape == (len(rows), 2)
    for c, (j, sign) in enumerate(((0, 1), (1, -1))):
        oriented = X[:, j] * sign
        for r, row in enumerate(rows):
            if math.isnan(row[j]):
                assert got[r, c] == 0  # no evidence, no penalty
                continue
            share = np.mean(oriented <= row[j] * sign)  # the empirical lower tail (1001 quantiles: to 1/1000)
            low, high = max(share - 0.0015, 1 / 2001), share + 0.0015
            assert (0.5 * min(0.0, math.log(low / shares[c])) - 1e-9
                    <= got[r, c] <= 0.5 * min(0.0, math.log(high / shares[c])) + 1e-9)
    # beyond the sample: the floor
    assert got[-2].sum() == pytest.approx(0.5 * math.log((1 / 2001) / 0.05) + 0.5 * math.log((1 / 2001) / 0.2))
    assert np.mean(got[:, 0] < 0) == pytest.approx(0.05, abs=0.03)  # about a_j of the sample's rows lowered
    assert np.mean(got[:, 1] < 0) == pytest.approx(0.2, abs=0.06)
    params, arrays = typical.state()
    assert np.array_equal(Typicality.from_state(np.array([1, -1, 0]), params, arrays).log_factors(rows), got)
    with pytest.raises(KcoocError, match="typicality_shares"):
        Typicality.from_state(np.array([1, -1, 0]), params, {**arrays, "shares": shares[:1]})
    with pytest.raises(KcoocError, match="in \\(0, 1\\]"):
        Typicality(np.array([1, -1, 0]), shares=np.array([0.05, 0.0]))


def test_length_ratios_and_the_targets_words_get_their_own_typicality_shares():
    from kcooc.filtering.classifier import PairClassifier

    names = ["tgt_chars", "char_ratio", "align_tgt", "word_ratio", "swaps_src", "swaps_tgt", "spelling_tgt"]
    model = PairClassifier(names, typicality_share=0.003, typicality_length_share=0.02, typicality_word_share=0.01)
    oriented = [name for name, o in zip(model.input_names, model.orientation) if o]
    assert oriented == ["char_ratio_above", "char_ratio_below", "align_tgt", "word_ratio_above", "word_ratio_below",
                        "swaps_src", "swaps_tgt", "spelling_tgt"]
    assert model.typicality_shares.tolist() == [0.02, 0.02, 0.003, 0.02, 0.02, 0.003, 0.01, 0.01]


def test_the_fixed_priors_are_factors_on_the_targets_swaps_and_spelling_the_mismatches_mojibake_and_stutters():
    """exp(beta_o min(0, swaps_tgt / spread + 1/2) + beta_s (spelling_tgt + min(0, spelling_tgt / its spread + 1/2))
    - beta_m numbers_mismatch - beta_p
    placeholders_mismatch - beta_e (encoding_src + encoding_tgt) - beta_l (the char ratio's distance beyond 2.5
    spreads) - beta_r stutter_tgt - beta_n (1 - ending)) multiplies the score whatever the fit learned, and the fit
    does not depend on it."""
    rng = np.random.default_rng(3)
    names = ["phsic", "swaps_tgt", "char_ratio", "spelling_tgt", "numbers_mismatch", "placeholders_mismatch",
             "encoding_src", "encoding_tgt", "stutter_tgt", "ending"]
    F = np.column_stack([rng.normal(size=400), -rng.exponential(2.0, 400) * (rng.random(400) < 0.4),
                         rng.normal(size=400), -rng.exponential(1.0, 400) * (rng.random(400) < 0.2),
                         rng.random(400) < 0.1, rng.random(400) < 0.1,
                         *(np.log1p(rng.integers(1, 4, 400) * (rng.random(400) < 0.1)) for _ in range(2)),
                         rng.random(400) * (rng.random(400) < 0.1), rng.random(400) > 0.1])
    F[:5, 1], F[:5, 2:9], F[:5, 9] = np.nan, 0.0, 1.0
    clean = F[:, 0] - np.abs(F[:, 2]) + 0.3 * rng.normal(size=400) > 0
    off = dict(order_weight=0.0, spelling_weight=0.0, mismatch_weight=0.0, placeholders_weight=0.0, ending_weight=0.0,
               encoding_weight=0.0, length_weight=0.0, repeat_weight=0.0)
    plain = PairClassifier(names, regularization=0.5, **off).fit(F, clean)
    priors = PairClassifier(names, regularization=0.5, order_weight=0.3, spelling_weight=0.7,
                            mismatch_weight=1.5, placeholders_weight=3.0, ending_weight=0.6, encoding_weight=2.5,
                            length_weight=0.8, repeat_weight=4.0).fit(F, clean)
    assert [m.state()[1]["weights"].tolist() for m in priors.models_] == \
        [m.state()[1]["weights"].tolist() for m in plain.models_]
    spread = np.median(np.abs(F[clean, 2] - np.median(F[clean, 2])))  # one share: no lengths among the names
    beyond = np.maximum(np.abs(F[:, 2] - np.median(F[clean, 2])) / spread - 2.5, 0.0)
    swaps_spread = max(-np.nanquantile(F[clean, 1], 0.05), 1.0)
    assert swaps_spread > 1.5  # the clean rows' swaps spread beyond one unit: the test sees the division
    order = np.minimum(np.nan_to_num(F[:, 1]) / swaps_spread + 0.5, 0.0)
    spelling_spread = max(-np.quantile(F[clean, 3], 0.01), 0.05)
    assert spelling_spread > 1.5  # beyond one unit: the test sees the division
    spelling = F[:, 3] + np.minimum(F[:, 3] / spelling_spread + 0.5, 0.0)
    factor = np.exp(0.3 * order + 0.7 * spelling - 1.5 * F[:, 4] - 3.0 * F[:, 5]
                    - 2.5 * (F[:, 6] + F[:, 7]) - 0.8 * beyond - 4.0 * F[:, 8] - 0.6 * (1 - F[:, 9]))
    np.testing.assert_allclose(priors.predict_proba(F), plain.predict_proba(F) * factor, rtol=1e-12)
    assert (factor < 1).sum() > 100 and np.all(factor[:5] == 1)  # a missing value is no evidence
    assert 10 < np.count_nonzero(beyond) < 200  # the allowance: most pairs' ratios are free
    alone = ((order == 0) & (F[:, 3] == 0) & (F[:, 6] == 0) & (F[:, 7] == 0) & (beyond == 0) & (F[:, 8] == 0)
             & (F[:, 9] == 1))
    assert np.isclose(factor[alone & (F[:, 4] == 1) & (F[:, 5] == 1)], np.exp(-4.5)).all()
    assert np.isclose(factor[alone & (F[:, 4] == 0) & (F[:, 5] == 1)], np.exp(-3)).all()
    assert np.isclose(factor[alone & (F[:, 4] == 0) & (F[:, 5] == 0)], 1).all()
    ends_differ = (order == 0) & (F[:, 3] == 0) & (F[:, 4] == 0) & (F[:, 5] == 0) & (F[:, 6] == 0) & (F[:, 7] == 0) \
        & (beyond == 0) & (F[:, 8] == 0) & (F[:, 9] == 0)
    assert ends_differ.sum() > 5 and np.isclose(factor[ends_differ], np.exp(-0.6)).all()
    typical = np.median(F[clean], axis=0)
    for column, name, value in ((1, "swaps_tgt", -8.0), (3, "spelling_tgt", -8.0), (4, "numbers_mismatch", 1.0),
                                (5, "placeholders_mismatch", 1.0), (7, "encoding_tgt", np.log(9)),
                                (8, "stutter_tgt", 1.0), (9, "ending", 0.0)):
        damaged = np.where(np.arange(10) == column, value, typical)[None]
        assert priors.expanded_names[priors.weakest(damaged)[0]] == name
    params, arrays = priors.state()
    assert np.array_equal(PairClassifier.from_state(params, arrays).predict_proba(F), priors.predict_proba(F))
    for key in ("order_weight", "mismatch_weight", "placeholders_weight", "ending_weight", "encoding_weight"):
        for bad in (-0.1, "1", None, 1e9):  # a model file written by hand or damaged
            with pytest.raises(KcoocError, match="fixed priors' weights"):
                PairClassifier.from_state({**params, key: bad}, arrays)
    for key in ("spelling_weight", "mismatch_weight", "placeholders_weight", "ending_weight", "encoding_weight",
                "length_weight", "repeat_weight", "sentences_weight"):  # older
        with pytest.raises(KcoocError, match="train and save it again"):
            PairClassifier.from_state({k: v for k, v in params.items() if k != key}, arrays)


def test_pair_classifier_combines_its_factors_and_its_gates():
    rng = np.random.default_rng(0)
    names = ["phsic", "char_ratio", "numbers"]
    F = rng.normal(size=(400, 3))
    clean = F[:, 0] - np.abs(F[:, 1]) + 0.3 * rng.normal(size=400) > 0
    model = PairClassifier(names, regularization=0.5).fit(F, clean)
    assert model.input_names == ["phsic", "char_ratio_above", "char_ratio_below", "numbers"]
    median = np.median(F[clean, 1])  # without lengths, one share: the sample's median and spread
    spread = np.median(np.abs(F[clean, 1] - median))
    distance = (F[:, 1] - median) / spread
    X = np.column_stack([F[:, 0], np.maximum(distance, 0), np.maximum(-distance, 0), F[:, 2]])
    np.testing.assert_allclose(model.inputs(F), X)
    m = model.models_[0].decision_function(X)

    def length_prior(X):  # learn.length_weight's default, beyond 2.5 spreads either way
        return -0.5 * np.maximum(X[:, 1:3] - 2.5, 0.0).sum(axis=1)

    np.testing.assert_allclose(model.predict_proba(F), np.exp(model.typicality_.log_factors(X).sum(axis=1)
                                                              + length_prior(X)) / (1 + np.exp(-m)), rtol=1e-12)
    # weakest: the input whose value set to the clean median's raises the model's log-odds plus the log
    # typicality factor and fixed prior most
    reference = np.median(X[clean], axis=0)

    def naive_weakest(x):
        def log_score(v):
            return (model.models_[0].decision_function(v[None])[0] + model.typicality_.log_factors(v[None]).sum()
                    + length_prior(v[None])[0])
        return int(np.argmax([log_score(np.where(np.arange(4) == k, reference, x)) for k in range(4)]))

    assert model.weakest(F[:50]).tolist() == [naive_weakest(x) for x in X[:50]]
    assert model.expanded_names[model.weakest(np.array([[0.0, median + 6.0, 0.0]]))[0]] == "char_ratio_above"
    params, arrays = model.state()
    again = PairClassifier.from_state(params, arrays)
    assert np.array_equal(again.predict_proba(F), model.predict_proba(F))
    assert np.array_equal(again.weakest(F), model.weakest(F))
    with pytest.raises(KcoocError, match="ratio_"):
        PairClassifier.from_state(params, {**arrays, "ratio_medians": arrays["ratio_medians"][:, :0]})
    with pytest.raises(KcoocError, match="ratio_"):
        PairClassifier.from_state(params, {**arrays, "ratio_scales": -arrays["ratio_scales"]})
    with pytest.raises(KcoocError, match="train and save it again"):  # saved before the ratios were read by length
        PairClassifier.from_state(params, {k: v for k, v in arrays.items() if not k.startswith("ratio_")})
    # a declared language is a gate on the probability, not one of the model's inputs
    posterior = np.where(rng.random(400) < 0.3, rng.random(400) ** 8 * 0.5, 1.0)
    chars = rng.integers(1, 200, 400)
    G = np.column_stack([F, np.log1p(chars), posterior])
    gated = PairClassifier(names + ["tgt_chars", "tgt_lang"], regularization=0.5, language_prior=0.8).fit(G, clean)
    plain = PairClassifier(names + ["tgt_chars"], regularization=0.5).fit(G[:, :4], clean)
    bucket = np.array([sum(c >= edge for edge in (10, 25, 50, 100)) for c in chars])
    edges = [-87.0, -30.0, -10.0, math.log(0.5)]
    depth = [next((e for e in edges if math.log(p) <= e), edges[-1]) for p in posterior]  # the first edge >= log P

    def rates(counted):  # per row: share r of the counted clean sides of its length at most as deep, smoothed
        return np.array([(sum(1 for j in range(400) if counted[j] and bucket[j] == bucket[i]
                              and math.log(posterior[j]) <= depth[i]) + 1)
                         / ((counted & (bucket == bucket[i])).sum() + 2) for i in range(400)])

    def bayes(rate, prior):
        return prior * rate / (prior * rate + 1 - prior)

    def gate_rates(prior):  # measured twice: the second time without the clean sides the first puts below 1/2
        first = posterior + (1 - posterior) * bayes(rates(clean), prior)
        return rates(clean & (first >= 0.5))

    rate = gate_rates(0.8)
    assert not np.allclose(rate, rates(clean))  # the second measurement left some sides out
    q = bayes(rate, 0.8)
    factor = posterior + (1 - posterior) * q  # the probability that the side is in its language, counted 1.5 times
    np.testing.assert_allclose(gated.predict_proba(G), plain.predict_proba(G[:, :4]) * factor ** 1.5, rtol=1e-12)
    once = PairClassifier(names + ["tgt_chars", "tgt_lang"], regularization=0.5, language_prior=0.8,
                          language_weight=1.0).fit(G, clean)
    np.testing.assert_allclose(once.predict_proba(G), plain.predict_proba(G[:, :4]) * factor, rtol=1e-12)
    params, arrays = once.state()  # a model saved before the weight existed counted the factor once
    del params["language_weight"]
    assert np.array_equal(PairClassifier.from_state(params, arrays).predict_proba(G), once.predict_proba(G))
    for bad in (-1.0, "2", None, 11.0):
        with pytest.raises(KcoocError, match="language gate's weight"):
            PairClassifier.from_state({**params, "language_weight": bad}, arrays)
    weakest = gated.weakest(G)
    low = posterior + (1 - posterior) * q < 0.5
    assert low.any() and all(gated.expanded_names[k] == "tgt_lang" for k in weakest[low])
    assert np.array_equal(weakest[~low], plain.weakest(G[:, :4])[~low])
    params, arrays = gated.state()
    assert np.array_equal(PairClassifier.from_state(params, arrays).predict_proba(G), gated.predict_proba(G))
    # the source's posterior: an input of the model, and with source_language_prior a gentler gate too
    source = names + ["src_chars", "src_lang"]
    as_input = PairClassifier(source, regularization=0.5).fit(G, clean)
    both = PairClassifier(source, regularization=0.5, source_language_prior=0.99).fit(G, clean)
    assert as_input.gate.columns == [] and both.gate.columns == [4] and "src_lang" in both.input_names
    q = bayes(gate_rates(0.99), 0.99)
    np.testing.assert_allclose(both.predict_proba(G),
                               as_input.predict_proba(G) * (posterior + (1 - posterior) * q) ** 1.5, rtol=1e-12)
    params, arrays = both.state()
    assert np.array_equal(PairClassifier.from_state(params, arrays).predict_proba(G), both.predict_proba(G))


def test_the_learned_score_never_rises_when_a_real_pair_disagrees_more():
    """Issue: prior knowledge the classifier cannot unlearn. On real pairs, moving any feature that measures
    disagreement or damage one step worse (a length ratio further from the corpus's typical one, more
    mismatched numbers, less agreement) never raises the probability, whatever the synthetic noise taught."""
    from kcooc.filtering.classifier import ORIENTATION
    from kcooc.text import TextStats as Stats

    src, tgt = read_en_ja(600)
    names = list(feat.PAIR_FEATURES)

    def features(s, t, originals=None):
        return feat.pair_features(s, t, Stats(s), Stats(t))

    classifier, _ = train(features, names, src, tgt, 0.25, 1.0, seed=7)
    F = features(src[:150], tgt[:150]).astype(np.float64)
    checked = 0
    for k, name in enumerate(names):
        if name in ("char_ratio", "word_ratio"):  # away from the typical ratio at the pair's length
            above = classifier.inputs(F)[:, classifier.input_names.index(f"{name}_above")]
            directions = [np.where(above > 0, 1.0, -1.0)]
        elif ORIENTATION.get(name):
            directions = [-ORIENTATION[name] * np.ones(len(F))]
        else:
            continue
        scale = np.std(F[:, k]) or 1.0
        for direction in directions:
            p = [classifier.predict_proba(F + np.outer(direction * step * scale, np.arange(F.shape[1]) == k))
                 for step in np.linspace(0, 3, 13)]
            assert (np.diff(np.array(p), axis=0) <= 1e-12).all(), name
            checked += 1
    assert checked >= 6


def test_detectors_are_fits_against_their_own_noise_and_the_clean_probability_is_their_softmax():
    from kcooc.filtering.monotone import MonotoneLogistic
    from kcooc.filtering.typicality import feature_noise

    rng = np.random.default_rng(1)
    names = ["phsic", "char_ratio", "numbers", "src_lang"]  # the source's posterior is an input, not a gate
    n = 900
    F = np.column_stack([rng.normal(1, 0.3, n), rng.normal(0, 0.1, n), np.ones(n), rng.uniform(0.8, 1, n)])
    labels = np.repeat([0, 1, 2], n // 3)
    F[labels == 1, 1] += rng.choice([-1, 1], n // 3) * rng.uniform(0.5, 1.5, n // 3)  # length defects only
    F[labels == 2, 0] -= rng.uniform(0.5, 1.5, n // 3)  # misaligned: low PHSIC only
    model = PairClassifier(names, regularization=0.5, detectors=["length", "misaligned"],
                           length_weight=0.0).fit(F, labels)  # the fixed priors: their own test
    assert model.gate.columns == [] and model.detectors_ == ["length", "misaligned"]
    X = model.inputs(F)
    clean = labels == 0
    noise = feature_noise(X[clean], model.orientation, 1.0, 0.02, np.random.default_rng([0, 2]))
    margins = []
    for k in (1, 2):  # each detector: clean against its own noise alone, and the feature-space noise
        rows = clean | (labels == k)
        detector = MonotoneLogistic(model.orientation, model.length, 0.5).fit(
            np.vstack([X[rows], noise]), np.r_[clean[rows], np.zeros(len(noise), dtype=bool)])
        margins.append(detector.decision_function(X))
    np.testing.assert_allclose(model.margins(F), np.column_stack(margins), rtol=1e-9, atol=1e-9)
    softmax = 1 / (1 + np.exp(-np.column_stack(margins)).sum(axis=1))
    np.testing.assert_allclose(model.predict_proba(F), softmax * np.exp(model.typicality_.log_factors(X).sum(axis=1)),
                               rtol=1e-9)
    params, arrays = model.state()
    again = PairClassifier.from_state(params, arrays)
    assert np.array_equal(again.predict_proba(F), model.predict_proba(F)) and again.detectors_ == model.detectors_
    # a pair that looks clean on everything but its length ranks below (nearly) every clean pair
    defect = np.array([[1.0, 1.2, 1.0, 0.95]])
    assert model.predict_proba(defect)[0] < np.quantile(model.predict_proba(F[clean]), 0.02)
    assert model.expanded_names[model.weakest(defect)[0]].endswith(":char_ratio_above")
    assert model.expanded_names[model.weakest(np.array([[-0.5, 0.0, 1.0, 0.95]]))[0]].endswith(":phsic")
    with pytest.raises(KcoocError, match="detectors"):
        PairClassifier.from_state({**params, "fitted_detectors": ["other"]}, arrays)


def gate_rows(path, lang):
    """[tgt_chars, tgt_lang] of the targets of a fixture corpus, as the extractor computes them, and the targets."""
    from kcooc.langid import LanguageIdentifier

    with open(path, encoding="utf-8") as f:
        targets = [line.rstrip("\n").split("\t")[1] for line in f]
    posterior = LanguageIdentifier().probability(targets, lang)
    return np.column_stack([np.log1p([len(t) for t in targets]), posterior]), targets


def test_the_language_gate_trusts_short_sides_the_identifier_doubts_and_rejects_another_language():
    from kcooc.filtering.gate import LanguageGate

    names = ["tgt_chars", "tgt_lang"]
    # a corpus's clean sides calibrate the gate: short German GCC messages the identifier doubts
    # ('ERRMSG-Variable', 'ESA/390-Architektur.', P(de) < .1) keep most of their score
    G, targets = gate_rows(f"{DATA}/en-de.tsv", "de")
    factors = LanguageGate(names).fit(G).factors(G)[:, 0]
    doubted = np.array([len(t) < 25 for t in targets]) & (G[:, 1] < 0.5)
    assert doubted.sum() >= 2 and (factors[doubted] > 0.5).all()
    assert np.mean(factors < 0.5) < 0.05
    # Chinese translations of the same LibreOffice strings and package descriptions in an en-ja corpus: every
    # one of ten characters or more that the identifier does not read as Japanese (two it does: '返回有关环境的信息。')
    # loses at least half its score, the Japanese sides almost never do
    J, _ = gate_rows(EN_JA, "ja")
    gate = LanguageGate(names).fit(J)
    Z, chinese = gate_rows(f"{DATA}/en-zh-wrong.tsv", "ja")
    long_enough = np.array([len(t) >= 10 for t in chinese]) & (Z[:, 1] < 0.5)
    assert long_enough.sum() >= 20 and (gate.factors(Z)[long_enough, 0] < 0.5).all()
    assert np.mean(gate.factors(J)[:, 0] < 0.5) < 0.05
    # the state round trip, and a state of another shape refused
    params, arrays = gate.state()
    again = LanguageGate.from_state(names, params, arrays)
    assert np.array_equal(again.factors(Z), gate.factors(Z))
    for bad in (arrays["rejection"][:, :2], arrays["rejection"] * 0, arrays["rejection"] + 1):  # a shape, rates
        with pytest.raises(KcoocError, match="rejection"):
            LanguageGate.from_state(names, params, {"rejection": bad})


def test_training_calibrates_the_gate_without_the_share_the_other_features_doubt():
    """The doubtful share is ranked with the gate's factors; a gate calibrated on what is left would never
    see the clean sides it doubts and would doubt them all the more. It is calibrated on the clean training
    pairs less the share ranked lowest by the score without the gate."""
    from kcooc.filtering.gate import LanguageGate
    from kcooc.langid import LanguageIdentifier
    from kcooc.text import TextStats as Stats

    src, tgt = read_en_ja(600)
    identifier = LanguageIdentifier()
    names = list(feat.PAIR_FEATURES) + ["tgt_lang"]

    def features(s, t, originals=None):
        return np.column_stack([feat.pair_features(s, t, Stats(s), Stats(t)), identifier.probability(t, "ja")])

    classifier, _ = train(features, names, src, tgt, 0.25, 1.0, seed=7, doubtful_share=0.3)
    first, _ = train(features, names, src, tgt, 0.25, 1.0, seed=7,  # its first fit: no fixed priors, the gate once
                     **dict.fromkeys(PRIORS.values(), 0.0), language_weight=1.0)
    noisy_src, noisy_tgt, _ = synthesize(src, tgt, 7, DEFAULT_NOISE_KINDS)
    F = np.vstack([features(src, tgt), features(noisy_src, noisy_tgt)])
    rows = np.flatnonzero(~(np.random.default_rng(8).random(600) < 0.25))  # the clean training pairs
    p = first.predict_proba(F[rows])
    without_gate = p / first.gate.factors(F[rows])[:, 0]
    credible = rows[np.argsort(without_gate, kind="stable")[int(0.3 * rows.size):]]
    expected = LanguageGate(names).fit(F[credible])
    np.testing.assert_array_equal(classifier.gate.rejection_, expected.rejection_)
    # ranked with the gate, the left-out share would hold more of the sides the identifier doubts
    gated = rows[np.argsort(p, kind="stable")[int(0.3 * rows.size):]]
    assert np.mean(F[gated, -1] < 0.5) < np.mean(F[credible, -1] < 0.5)


def test_the_first_fit_ranks_the_doubtful_share_without_the_fixed_priors():
    """The fixed priors are not a lesson: had the first fit ranked the sample with them, the refit would lose
    the pairs whose order, spelling or numbers the corpus doubts and learn the same thing again from their
    absence."""
    from kcooc.text import TextStats as Stats

    src, tgt = read_en_ja(600)
    names = list(feat.PAIR_FEATURES) + ["swaps_tgt", "spelling_tgt", "numbers_mismatch"]

    def features(s, t, originals=None):  # any values <= 0 a side has, and a mismatch on some
        swaps, spelling = (-np.array([len(text) % k for text in t], dtype=np.float64) for k in (7, 3))
        mismatch = np.array([len(text) % 11 == 0 for text in s], dtype=np.float64)
        return np.column_stack([feat.pair_features(s, t, Stats(s), Stats(t)), swaps, spelling, mismatch])

    plain, _ = train(features, names, src, tgt, 0.25, 1.0, seed=7, doubtful_share=0.3, order_weight=0.0,
                     spelling_weight=0.0, mismatch_weight=0.0)
    priors, _ = train(features, names, src, tgt, 0.25, 1.0, seed=7, doubtful_share=0.3, order_weight=0.5,
                      spelling_weight=0.2, mismatch_weight=2.0)
    assert [m.state()[1]["weights"].tolist() for m in priors.models_] == \
        [m.state()[1]["weights"].tolist() for m in plain.models_]
    F = features(src, tgt)
    spread = priors.priors_.spreads_[0]  # the swaps' (the first prior), fitted on the refit's clean rows
    spelling_spread = priors.priors_.spreads_[2]  # the spelling's second prior, in units of its spread
    factor = np.exp(0.5 * np.minimum(F[:, -3] / spread + 0.5, 0) + 0.2 * F[:, -2]
                    + 0.2 * np.minimum(F[:, -2] / spelling_spread + 0.5, 0) - 2.0 * F[:, -1])
    np.testing.assert_allclose(priors.predict_proba(F), plain.predict_proba(F) * factor, rtol=1e-12)
    # the priors move the ranking: ranked with them, the doubtful share would be other pairs (and the fits differ)
    p = plain.predict_proba(F)
    assert set(np.argsort(p, kind="stable")[:180]) != set(np.argsort(p * factor, kind="stable")[:180])


def test_training_is_seeded_and_reports_held_out_numbers():
    from kcooc.text import TextStats as Stats

    src, tgt = read_en_ja(600)

    def features(s, t, originals=None):
        return feat.pair_features(s, t, Stats(s), Stats(t))

    first, report = train(features, list(feat.PAIR_FEATURES), src, tgt, 0.25, 1.0, seed=7)
    second, again = train(features, list(feat.PAIR_FEATURES), src, tgt, 0.25, 1.0, seed=7)
    assert report == again and all(np.array_equal(a.weights_, b.weights_)
                                   for a, b in zip(first.models_, second.models_))
    assert report["validation_pairs"] + report["train_pairs"] == 1200
    # by default the kinds of DEFAULT_NOISE_KINDS, partial_copy only when learn.noise_kinds names it
    assert 0.7 < report["validation_roc_auc"] <= 1
    assert set(report["validation_recall_by_noise"]) == set(DEFAULT_NOISE_KINDS)
    assert set(NOISE_KINDS) - set(DEFAULT_NOISE_KINDS) == {"partial_copy"}
    named = train(features, list(feat.PAIR_FEATURES), src, tgt, 0.25, 1.0, seed=7, noise_kinds=NOISE_KINDS)[1]
    assert set(named["validation_recall_by_noise"]) == set(NOISE_KINDS)
    with pytest.raises(KcoocError, match="too few"):
        train(features, list(feat.PAIR_FEATURES), src[:5], tgt[:5], 0.25, 1.0, seed=7)

    # with a doubtful share: the final fit leaves out the clean training pairs the first fit scored lowest
    names = list(feat.PAIR_FEATURES)
    cleaned, _ = train(features, names, src, tgt, 0.25, 1.0, seed=7, doubtful_share=0.3, detectors=True)
    noisy_src, noisy_tgt, kinds = synthesize(src, tgt, 7, DEFAULT_NOISE_KINDS)
    F = np.vstack([features(src, tgt), features(noisy_src, noisy_tgt)])
    families = list(dict.fromkeys(NOISE_FAMILIES[kind] for kind in DEFAULT_NOISE_KINDS))
    labels = np.r_[np.zeros(600, dtype=int), [1 + families.index(NOISE_FAMILIES[NOISE_KINDS[k]]) for k in kinds]]
    held = np.tile(np.random.default_rng(8).random(600) < 0.25, 2)
    clean_rows = [i for i in range(600) if not held[i]]
    first_detectors, _ = train(features, names, src, tgt, 0.25, 1.0, seed=7, detectors=True,  # its first fit
                               **dict.fromkeys(PRIORS.values(), 0.0))
    p = first_detectors.predict_proba(F[clean_rows])
    doubtful = {clean_rows[k] for k in sorted(range(len(clean_rows)), key=lambda k: p[k])[: int(0.3 * len(clean_rows))]}
    keep = [i for i in range(1200) if not held[i] and i not in doubtful]
    expected = PairClassifier(names, 1.0, 7, detectors=families).fit(F[keep], labels[keep], start=first_detectors)
    assert cleaned.detectors_ == families

    def weights(classifier):
        return np.concatenate([model.weights_ for model in classifier.models_])

    np.testing.assert_allclose(weights(cleaned), weights(expected), rtol=1e-6, atol=1e-6)
    assert not np.allclose(cleaned.predict_proba(F), first_detectors.predict_proba(F))
    one, _ = train(features, names, src, tgt, 0.25, 1.0, seed=7)  # the default: one clean-vs-all fit
    held_out = np.random.default_rng(8).random(600) < 0.25
    rows = np.flatnonzero(~np.tile(held_out, 2))
    binary = PairClassifier(names, 1.0, 7).fit(F[rows], rows < 600)
    assert one.detectors_ == ["noise"] and np.allclose(weights(one), weights(binary))


def test_learned_scores_through_the_passes_equal_the_classifier_on_every_feature(tmp_path):
    from kcooc.filtering.passes import FilterContext
    from kcooc.filtering.pipeline import fit

    cfg = load(FilterConfig, None, {"task_lines": 300, "input.block_size": 128, "learn.sample": 500,
                                    "learn.lexical_buckets": 256, "learn.fluency_buckets": 4096,
                                    "rules.tgt_language": "japanese", "rules.max_length_ratio": 8.0})
    filter_job = job(tmp_path, cfg)
    fitted = fit(filter_job)
    model, learned = fitted.phsic, fitted.learned
    reasons = filter_job.work.array("reasons", np.uint8)
    scores = filter_job.score(model, fitted.encoders, reasons, learned).scores
    src, tgt = read_en_ja()
    keep = np.flatnonzero(reasons == PASS)
    extractor = FilterContext(cfg, model, fitted.encoders, learned).prepare().extractor
    F = extractor([src[i] for i in keep], [tgt[i] for i in keep])
    np.testing.assert_allclose(scores[keep], learned.classifier.predict_proba(F), rtol=1e-5, atol=1e-6)
    assert np.isnan(scores[reasons != PASS]).all()
    assert learned.validation["validation_pairs"] > 100 and learned.counts.trigrams.sum() > 0
