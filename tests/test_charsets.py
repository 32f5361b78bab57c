"""Foreign letters (kcooc/filtering/charsets.py), the gate factor they give (gate.py) and the rivals a side's
alphabet rules out."""

import unicodedata

import numpy as np

from kcooc.filtering.charsets import ALPHABETS, CODE_PAGES, declared_posterior, foreign_shares
from kcooc.filtering.gate import FOREIGN_POWER, LanguageGate
from kcooc.langid import LanguageIdentifier
from kcooc.text import lowered

from conftest import DATA


def naive_share(text, code, other):
    """The definition, letter by letter: a non-Latin letter the code page cannot encode (a Cyrillic one outside
    the alphabet, for a language that has one; for Japanese without kana, a kanji of JIS X 0208's second level,
    whose EUC-JP bytes start with 0xD0-0xF4, rows 48-84), absent from the other side."""
    kana = any(unicodedata.name(c, "").startswith(("HIRAGANA", "KATAKANA", "HALFWIDTH KATAKANA")) for c in text)

    def foreign(c):
        if not c.isalpha() or unicodedata.name(c, "").startswith("LATIN") or c in other:
            return False
        if code in ALPHABETS and unicodedata.name(c, "").startswith("CYRILLIC"):
            return c.lower() not in ALPHABETS[code]
        if code == "ja" and not kana and 0xD0 <= c.encode("euc_jp", "replace")[0] <= 0xF4:
            return True
        try:
            c.encode(CODE_PAGES[code])
            return False
        except UnicodeEncodeError:
            return True
    letters = [c for c in text if c.isalpha()]
    return sum(map(foreign, letters)) / len(letters) if letters else 0.0


def fixture_pairs(name):
    with open(f"{DATA}/{name}", encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t")[:2] for line in f]


def test_foreign_shares_are_the_letter_by_letter_definition_on_real_sides():
    japanese, chinese = fixture_pairs("en-ja.tsv"), fixture_pairs("en-zh-wrong.tsv")
    src = [s for s, _ in japanese + chinese] + ["x", "Kigo", "Dvořák", "Α, Β, Γ (Greek)", "x"]
    tgt = [t for _, t in japanese + chinese] + ["𠀋𡈽 のテスト", "囲碁、围棋、바둑", "ドヴォルザーク Dvořák",
                                                "Α, Β, Γ（ギリシャ文字）", "→ ✓ 123"]
    shares = foreign_shares(tgt, "ja", src)
    np.testing.assert_allclose(shares, [naive_share(t, "ja", s) for s, t in zip(src, tgt)], rtol=1e-6)
    assert not shares[: len(japanese)].any()  # no clean Japanese side has a letter Japanese does not write
    assert np.mean(shares[len(japanese) : len(japanese) + len(chinese)] > 0) > 0.6  # most Chinese sides have some
    assert shares[-5] == np.float32(2 / 6)  # letters beyond the BMP count as letters too
    assert shares[-4] == np.float32(3 / 6)  # 围 바 둑; Latin letters and letters the source has do not count
    assert shares[-3] == shares[-2] == shares[-1] == 0
    # second-level kanji: foreign on a side without kana (Chinese 从, 档), not amid kana (綺麗), not when copied
    kanji = ["从下向上", "文档", "綺麗に印刷", "ﾌｧｲﾙ 从", "康熙", "区域"]
    np.testing.assert_allclose(foreign_shares(kanji, "ja", ["x", "x", "x", "x", "熙", "x"]),
                               [0.25, 0.5, 0, 0, 0, 0])
    np.testing.assert_allclose(foreign_shares(kanji, "ja", ["x"] * 6),
                               [naive_share(t, "ja", "x") for t in kanji], rtol=1e-6)
    # Cyrillic in a side declared German; a language without a code page here, and no language: nothing
    assert foreign_shares(["Größe", "Размер"], "de", ["Size", "Size"]).tolist() == [0.0, 1.0]
    assert not foreign_shares(["对象颜色"], "zh", ["x"]).any() and not foreign_shares(["对象颜色"], None, ["x"]).any()


def test_a_cyrillic_side_with_letters_of_another_cyrillic_alphabet_has_foreign_letters():
    """Russian and Ukrainian share a code page, not an alphabet: і, ї, є, ґ are foreign to a Russian side,
    ы, э, ъ, ё to a Ukrainian one (real Debian lines of both)."""
    with open(f"{DATA}/langid-lines.tsv", encoding="utf-8") as f:
        lines = [line.rstrip("\n").split("\t") for line in f]
    russian, ukrainian = ([text for code, _, text in lines if code == language] for language in ("ru", "uk"))
    texts = russian + ukrainian + ["Київ, Ёлка", "Вы уверены?"]
    others = ["x"] * (len(texts) - 2) + ["Kyiv, Київ", "Are you sure?"]
    for language in ("ru", "uk", "bg", "de"):
        np.testing.assert_allclose(foreign_shares(texts, language, others),
                                   [naive_share(t, language, o) for t, o in zip(texts, others)], rtol=1e-6)
    as_russian, as_ukrainian = foreign_shares(texts, "ru", others), foreign_shares(texts, "uk", others)
    assert not as_russian[: len(russian)].any() and not as_ukrainian[len(russian) : -2].any()
    assert np.mean(as_russian[len(russian) : -2] > 0) > 0.5 and np.mean(as_ukrainian[: len(russian)] > 0) > 0.3
    assert as_russian[-2] == 0 and as_ukrainian[-2] == np.float32(1 / 8)  # Київ is on the other side; Ё is not
    assert as_russian[-1] == 0 and as_ukrainian[-1] == np.float32(2 / 9)  # ы twice in nine letters
    assert not foreign_shares(["Größe, Straße"], "ru", ["x"]).any()  # Latin letters never count


def test_a_side_with_letters_its_language_does_not_write_loses_its_score_at_any_length():
    names = ["tgt_chars", "tgt_lang", "foreign_tgt"]
    pairs = fixture_pairs("en-ja.tsv")
    tgt = [t for _, t in pairs]
    G = np.column_stack([np.log1p([len(t) for t in tgt]), np.full(len(tgt), 0.9),
                         foreign_shares(tgt, "ja", [s for s, _ in pairs])])
    gate = LanguageGate(names).fit(G)
    plain = LanguageGate(names[:2]).fit(G[:, :2])
    shares = np.array([0.0, 0.05, 0.2, 0.5])
    rows = np.column_stack([np.full(4, np.log1p(4)), np.full(4, 0.9), shares])
    expected = plain.factors(rows[:, :2])[:, 0] * (1 - shares) ** FOREIGN_POWER
    np.testing.assert_allclose(gate.factors(rows)[:, 0], expected)
    assert np.all(np.diff(gate.factors(rows)[:, 0]) < 0)
    assert gate.factors(rows)[2, 0] < 0.05  # one letter in five: a short Chinese string such as 表格单元格


def naive_declared_posterior(text, code, identifier):
    """The definition, language by language: the identifier's posterior renormalised over the languages whose
    alphabet holds every Cyrillic letter of the text (every language without an alphabet here, and ``code``)."""
    log_posteriors = identifier.log_probabilities([text])[0].astype(np.float64)
    letters = {c for c in text.lower() if c.isalpha() and unicodedata.name(c, "").startswith("CYRILLIC")}
    kept = [k for k, language in enumerate(identifier.languages)
            if language == code or language not in ALPHABETS or letters <= set(ALPHABETS[language])]
    return np.exp(log_posteriors[identifier.languages.index(code)]) / np.exp(log_posteriors[kept]).sum()


def test_the_declared_posterior_leaves_out_the_rivals_whose_alphabet_lacks_a_letter_of_the_side():
    """Real Debian lines of Russian, Ukrainian and other languages, a Ukrainian one the identifier reads as Russian
    (і rules Russian out), mixed and empty strings; the declared language is never ruled out, and a side without
    Cyrillic letters keeps the identifier's posterior to the bit."""
    with open(f"{DATA}/langid-lines.tsv", encoding="utf-8") as f:
        texts = [line.rstrip("\n").split("\t")[2] for line in f]
    texts += ["Багатопотоковий сканер портів", "Київ, Ёлка", "Вы уверены?", "", "Größe 12", "Ђорђе и Љубица"]
    identifier = LanguageIdentifier()
    posteriors = identifier.log_probabilities(texts)
    for code in ("ru", "uk", "bg", "sr", "kk", "de"):
        got = declared_posterior(posteriors, identifier.languages, code, lowered(texts))
        want = [naive_declared_posterior(t, code, identifier) for t in texts]
        np.testing.assert_allclose(got, want, rtol=1e-3)  # the identifier's logs are float32
        plain = [k for k, t in enumerate(texts) if not any("\u0400" <= c <= "\u052f" for c in t)]
        assert np.array_equal(got[plain], identifier.probability([texts[k] for k in plain], code))
    ukrainian = texts.index("Багатопотоковий сканер портів")
    assert identifier.predict([texts[ukrainian]])[0] == "ru"
    assert declared_posterior(posteriors, identifier.languages, "uk", lowered(texts))[ukrainian] > 0.99
    both = texts.index("Київ, Ёлка")  # letters of no single alphabet: only the declared language stays possible
    assert declared_posterior(posteriors, identifier.languages, "ru", lowered(texts))[both] > 0.99


def test_the_filter_reads_a_side_in_its_language_by_the_declared_posterior():
    """The learned score's ``tgt_lang`` feature is that posterior: a Ukrainian message the identifier alone puts in
    Russian is Ukrainian to the filter, a Russian one stays doubted as Ukrainian."""
    from kcooc.filtering.extractor import FeatureExtractor, feature_names
    from kcooc.text import TextStats

    names = feature_names("en", "uk")
    src, tgt = ["Multithreaded port scanner", "Are you sure?"], ["Багатопотоковий сканер портів", "Вы уверены?"]
    features = FeatureExtractor(names, "en", "uk").pair(src, tgt, TextStats(src), TextStats(tgt))
    posterior = features[:, names.index("tgt_lang")]
    assert posterior[0] > 0.99 and posterior[1] < 0.01
    identifier = LanguageIdentifier()
    np.testing.assert_array_equal(posterior, declared_posterior(identifier.log_probabilities(tgt), identifier.languages,
                                                                "uk", lowered(tgt)).astype(np.float32))
