"""Build real parallel corpora from Debian packages: en-ja (the stand-in for ASPEC), en-de, en-fr.

Real sources with natural noise, all from Debian packages:
* package-description translations: apt's Translation-en and Translation-<lang> index files, aligned
  on Description-md5; each description is split into its short description and paragraphs,
  paired when both languages have the same number of paragraphs (source ``debian-description``);
* gettext catalogues (.mo, read with polib), msgid -> msgstr: LibreOffice's UI strings
  (libreoffice-l10n-ja, menu accelerators removed; source ``libreoffice``) for en-ja, and GCC's
  compiler and preprocessor messages (gcc-12-locales; source ``gcc``) for en-de and en-fr.

Writes ``OUT/en-<lang>.tsv``: en <TAB> translation <TAB> source, unique pairs, in a fixed order
(the order of the index or catalogue, so neighbouring rows are neighbouring segments of the same
description or catalogue). Also writes ``OUT/en-zh.tsv`` (Simplified Chinese descriptions and
LibreOffice strings): not a benchmark pair, but real wrong-language material for en-ja. With
``--fasttext DIR`` also trains a fastText skip-gram model per language on the corpus' own sides
(``DIR/en-100.bin``, ``DIR/ja-100.bin``; Japanese with every kana/Han character a token, matching
the encoder's ``split_cjk``), single-threaded so the models are reproducible.

    python scripts/data_parallel.py --out data/parallel --cache data/cache --fasttext data/fasttext
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import subprocess
import tempfile
import unicodedata

LANGUAGES = "en,ja,de,fr,zh_CN"
# pair -> (Translation-* suffix, catalogue sources); en-ja is the corpus the project has always used.
CORPORA = {
    "ja": ("ja", [("libreoffice", "libreoffice-l10n-ja", "**/*.mo")]),
    "de": ("de", [("gcc", "gcc-12-locales", "usr/share/locale/de/LC_MESSAGES/*.mo")]),
    "fr": ("fr", [("gcc", "gcc-12-locales", "usr/share/locale/fr/LC_MESSAGES/*.mo")]),
    "zh": ("zh_CN", [("libreoffice", "libreoffice-l10n-zh-cn", "**/*.mo")]),
}


def apt_lists(cache: str) -> str:
    """A private apt lists directory holding the Translation-* indexes (fetched once)."""
    lists = os.path.join(cache, "apt-lists")
    if not all(index_files(lists, code) for code in LANGUAGES.split(",")):
        os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
        subprocess.run(["apt-get", "-q", "-o", f"Dir::State::Lists={os.path.abspath(lists)}",
                        "-o", f"Acquire::Languages={LANGUAGES}", "update"], check=True, stdout=subprocess.DEVNULL)
    return lists


def index_files(lists: str, code: str) -> list[str]:
    """The bookworm main Translation-<code> index in an apt lists directory ('_' is stored as %5f)."""
    return glob.glob(os.path.join(lists, f"*bookworm_main_i18n_Translation-{code.replace('_', '%5f')}*"))


def read_index(path: str) -> dict[str, tuple[str, list[str]]]:
    """Description-md5 -> (short description, paragraphs) from one Translation-* index."""
    text = subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path], check=True, capture_output=True).stdout
    records = {}
    for record in text.decode("utf-8", "replace").split("\n\n"):
        md5, lines, body = None, [], False
        for line in record.split("\n"):
            if line.startswith("Description-md5:"):
                md5 = line.split(":", 1)[1].strip()
            elif line.startswith("Description-"):
                lines, body = [line.split(":", 1)[1].strip()], True
            elif body and line.startswith(" "):
                lines.append(line[1:])
            else:
                body = False
        if md5 and lines:
            records[md5] = lines
    words = collections.Counter(word for lines in records.values() for line in lines[1:] for word in line.split())
    return {md5: (lines[0], paragraphs(lines[1:], words)) for md5, lines in records.items()}


def paragraphs(lines: list[str], words: collections.Counter) -> list[str]:
    """Join wrapped lines into paragraphs ('.' lines separate them). A wrap between two characters of a
    script written without spaces (East Asian wide ones: kana, Han, their punctuation, full-width forms)
    joins without a space; one between two Hangul syllables (Korean writes spaces, but its descriptions
    are also wrapped inside words: ``전|쟁``) joins without one where ``words`` (the index's word counts)
    has the joined word more often than the rarer of its two parts; any other wrap was at a space."""
    result, current = [], ""
    for line in lines + ["."]:
        if line.strip() == ".":
            if current.strip():
                result.append(current.strip())
            current = ""
            continue
        line = line.strip()
        if current and line and _unspaced_wrap(current, line, words):
            current += line
        else:
            current = f"{current} {line}" if current else line
    return result


def _unspaced_wrap(before: str, after: str, words: collections.Counter) -> bool:
    """Whether the wrap between the texts ``before`` and ``after`` broke no space (paragraphs)."""
    a, b = before[-1], after[0]
    if _hangul(a) and _hangul(b):
        left, right = before.split()[-1], after.split()[0]
        return words[left + right] > min(words[left], words[right])
    return all(unicodedata.east_asian_width(c) in "WF" and not _hangul(c) for c in (a, b))


def _hangul(c: str) -> bool:
    return "\uac00" <= c <= "\ud7a3"


def description_pairs(lists: str, code: str) -> list[tuple[str, str, str]]:
    en_file, xx_file = index_files(lists, "en")[0], index_files(lists, code)[0]
    english, translated = read_index(en_file), read_index(xx_file)
    pairs = []
    for md5, (xx_short, xx_paragraphs) in translated.items():
        if md5 not in english:
            continue
        en_short, en_paragraphs = english[md5]
        if len(en_paragraphs) != len(xx_paragraphs):
            continue
        pairs.append((en_short, xx_short, "debian-description"))
        pairs += [(e, x, "debian-description") for e, x in zip(en_paragraphs, xx_paragraphs)]
    return pairs


def catalogue_pairs(cache: str, source: str, package: str, pattern: str) -> list[tuple[str, str, str]]:
    """msgid -> msgstr (plural entries skipped) of every .mo file of a Debian package matching ``pattern``,
    files in sorted order and entries in catalogue order; accelerators removed."""
    import polib

    root = os.path.join(cache, package)
    if not glob.glob(os.path.join(root, "**", "*.mo"), recursive=True):
        os.makedirs(root, exist_ok=True)
        subprocess.run(["apt-get", "-q", "download", package], cwd=root, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deb = glob.glob(os.path.join(root, f"{package}_*.deb"))[0]
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    pairs = []
    for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
        for entry in polib.mofile(path):
            en, xx = entry.msgid, entry.msgstr
            if xx and en and any(c.isalpha() for c in en):
                if re.search(r"\(_[^)]\)", xx):  # GTK mnemonic: '非表示(_B)' <-> 'Invisi_ble'
                    en, xx = en.replace("_", "", 1), re.sub(r"\(_[^)]\)", "", xx)
                pairs.append((strip_accelerator(en), strip_accelerator(xx), source))
    return pairs


def strip_accelerator(text: str) -> str:
    """'~Open' -> 'Open', '開く(~O)' -> '開く'; newlines and tabs become spaces."""
    text = re.sub(r"\(~[^)]\)", "", text).replace("~", "")
    return re.sub(r"\s+", " ", text).strip()


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip()


def unique_rows(pairs: list[tuple[str, str, str]]) -> list[str]:
    """``en <TAB> translation <TAB> source`` lines of the distinct (en, translation) pairs, whitespace-normalised,
    first occurrence first (pairs with an empty side left out)."""
    seen, rows = set(), []
    for en, xx, source in pairs:
        en, xx = clean(en), clean(xx)
        if en and xx and (en, xx) not in seen:
            seen.add((en, xx))
            rows.append(f"{en}\t{xx}\t{source}\n")
    return rows


def train_fasttext(sentences: list[str], split_cjk: bool, output: str) -> None:
    import fasttext

    from kcooc.encoders import tokenize

    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt") as text:
        text.write("\n".join(" ".join(tokenize(s, True, True, split_cjk)) for s in sentences) + "\n")
        text.flush()
        model = fasttext.train_unsupervised(text.name, model="skipgram", dim=100, epoch=10, minCount=2,
                                            bucket=200000, thread=1, verbose=0)
    model.save_model(output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="data/parallel")
    parser.add_argument("--cache", default="data/cache")
    parser.add_argument("--fasttext", default=None, help="also train en-100.bin and ja-100.bin here")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    lists = apt_lists(args.cache)
    for lang, (code, catalogues) in CORPORA.items():
        pairs = description_pairs(lists, code)
        for source, package, pattern in catalogues:
            pairs += catalogue_pairs(args.cache, source, package, pattern)
        rows = unique_rows(pairs)
        with open(os.path.join(args.out, f"en-{lang}.tsv"), "w", encoding="utf-8") as f:
            f.writelines(rows)
        counts = {s: sum(r.endswith(f"\t{s}\n") for r in rows) for s in sorted({p[2] for p in pairs})}
        print(f"{len(rows)} unique en-{lang} pairs -> {args.out}/en-{lang}.tsv {counts}")
        if args.fasttext and lang == "ja":
            os.makedirs(args.fasttext, exist_ok=True)
            columns = [row.split("\t") for row in rows]
            train_fasttext([c[0] for c in columns], False, os.path.join(args.fasttext, "en-100.bin"))
            train_fasttext([c[1] for c in columns], True, os.path.join(args.fasttext, "ja-100.bin"))
            print(f"fastText models -> {args.fasttext}/en-100.bin, ja-100.bin")


if __name__ == "__main__":
    main()
