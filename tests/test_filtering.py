"""filter-parallel internals against naive references: text statistics, rules, selection, dedup,
the shard-independent ICD sample, engines, and PHSIC learned through the passes."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from kcooc.config import load
from kcooc.engine import Context, ProcessEngine, SerialEngine
from kcooc.errors import KcoocError
from kcooc.filtering.config import FilterConfig, RulesConfig, SelectConfig
from kcooc.filtering.job import FilterJob, Workspace, mark_duplicates, merge_samples, sample_priorities
from kcooc.filtering.rules import CODE, PASS, rule_reasons
from kcooc.filtering.select import select
from kcooc.phsic.model import PHSIC
from kcooc.text import LANGUAGE_SCRIPTS, SCRIPT_RANGES, TextStats

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
    def script_ok(text, language):
        _, _, letters, _, in_script = naive_stats(text, language)
        return in_script >= rules.min_script_ratio * letters

    reasons = []
    for s, t in zip(src, tgt):
        ns, nt = naive_stats(s, "latin"), naive_stats(t, "latin")
        if rules.empty_side and (not s.split() or not t.split()):
            reasons.append("empty_side")
        elif rules.identical_sides and s.strip().casefold() == t.strip().casefold():
            reasons.append("identical_sides")
        elif rules.max_chars is not None and max(len(s), len(t)) > rules.max_chars:
            reasons.append("too_long")
        elif rules.max_length_ratio is not None and max(len(s), len(t)) > rules.max_length_ratio * max(min(len(s), len(t)), 1):
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
    reasons = np.array(data.draw(st.lists(st.sampled_from([0, 0, 0, 1, 3]), min_size=len(values), max_size=len(values))),
                       dtype=np.uint8)
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
    assert mark_duplicates(reasons, hashes) == 3
    assert reasons.tolist() == [1, 0, 0, 0, CODE["duplicate"], CODE["duplicate"], CODE["duplicate"]]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=8), st.integers(1, 25), st.integers(0, 3))
def test_icd_sample_does_not_depend_on_how_the_input_is_cut(sizes, limit, seed):
    n = sum(sizes)
    rows = np.arange(n)
    X = rows[:, None].astype(float)
    merged, start = (np.zeros(0, np.uint64), rows[:0], X[:0], X[:0]), 0
    for size in sizes:
        part = rows[start : start + size]
        merged = merge_samples(merged, (sample_priorities(part, seed), part, X[part], X[part] * 2), limit)
        start += size
    priorities = sample_priorities(rows, seed)
    expected = np.sort(np.argsort(priorities)[:limit])
    assert merged[1].tolist() == expected.tolist()
    assert np.array_equal(merged[2].ravel(), expected.astype(float))


class Square(Context):
    def prepare(self):
        return self


def square(runtime, item):
    return item * item


def test_process_engine_returns_results_in_order():
    items = list(range(40))
    serial = list(SerialEngine().map(square, Square(), items))
    parallel = list(ProcessEngine(2).map(square, Square(), iter(items)))
    assert serial == parallel == [i * i for i in items]


def job(tmp_path, cfg, path=EN_JA, engine=None):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return FilterJob(cfg, path, engine or SerialEngine(), Workspace(str(work)))


@pytest.mark.parametrize("kernel", ["cos", "rbf"])
def test_phsic_learned_through_the_passes_equals_fit_on_the_passing_pairs(tmp_path, kernel):
    from kcooc.encoders import build_encoder
    from kcooc.filtering.commands import learn_or_load

    cfg = load(FilterConfig, None, {"encoder.name": "hashing", "encoder.n_features": 64, "kernel.name": kernel,
                                    "kernel.rank": 40, "kernel.sample": None, "task_lines": 300,
                                    "input.block_size": 128, "rules.tgt_language": "japanese"})
    filter_job = job(tmp_path, cfg)
    model, _ = learn_or_load(filter_job, cfg, None, {})
    reasons = filter_job.work.array("reasons", np.uint8)
    scores = filter_job.score(model, reasons, None)
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
