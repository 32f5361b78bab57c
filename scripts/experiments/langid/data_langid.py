"""Build a real multilingual language-identification test set from Debian packages.

Two domains, each segment labelled by the language of the file it comes from:
* ``descriptions.tsv``: package-description translations (apt's Translation-<lang> index files,
  fetched into a private apt lists directory): short descriptions and the sentences of the long
  descriptions. A segment that also occurs in the English description of the same package (an
  untranslated line) is dropped, so labels are the translators' languages;
* ``gettext.tsv``: GCC's compiler and preprocessor messages (``gcc-12-locales``, gettext .mo read
  with polib), msgstr of every translated entry that differs from its msgid;
* ``programs.tsv``: the same from the catalogues of other programs (``PROGRAMS``: command-line tools
  and desktop libraries; never GCC), in every language with at least ``MIN_SEGMENTS`` translated
  messages that kcooc.langid knows, and their English msgids as ``en``: the short technical strings
  a parallel corpus of program messages is made of.

Each file has rows ``language <TAB> length class <TAB> segment`` with language an ISO 639-1 code
(pt_BR -> pt, zh_CN/zh_TW -> zh), length class ``short`` (< 40 characters) or ``long``, and at most
``--per-class`` segments per language and class, drawn with a fixed seed. ``--fixture PATH`` also
writes a small excerpt of the descriptions (committed as the test suite's real multilingual lines).

    python -m scripts.experiments.langid.data_langid --out data/langid --cache data/cache
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import re
import subprocess

from scripts.experiments.filtering.data_parallel import clean, read_index

# Translation-* suffix -> ISO 639-1 code; the languages with more than a few hundred translated descriptions
DESCRIPTION_LANGUAGES = {"en": "en", "de": "de", "fr": "fr", "es": "es", "it": "it", "pt": "pt", "pt_BR": "pt",
                         "nl": "nl", "sv": "sv", "da": "da", "fi": "fi", "pl": "pl", "cs": "cs", "sk": "sk",
                         "hu": "hu", "ru": "ru", "uk": "uk", "ja": "ja", "ko": "ko", "zh_CN": "zh", "zh_TW": "zh"}
SHORT = 40  # characters
PROGRAMS = ("coreutils", "tar", "grep", "sed", "findutils", "diffutils", "dpkg", "apt", "wget", "bash", "nano",
            "util-linux-locales", "libc-l10n", "gnupg-l10n", "e2fsprogs-l10n", "libgtk-3-common", "libglib2.0-data",
            "pidgin-data", "gnumeric-common", "xfce4-panel")
MIN_SEGMENTS = 300  # distinct translated messages a language needs in PROGRAMS' catalogues
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\w)|(?<=[。！？])")


def apt_lists(cache: str) -> str:
    """A private apt lists directory with the Translation-* indexes of DESCRIPTION_LANGUAGES (fetched once)."""
    lists = os.path.join(cache, "apt-lists-langid")
    if not all(index_file(lists, suffix) for suffix in DESCRIPTION_LANGUAGES):
        os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
        subprocess.run(["apt-get", "-q", "-o", f"Dir::State::Lists={os.path.abspath(lists)}",
                        "-o", f"Acquire::Languages={','.join(DESCRIPTION_LANGUAGES)}", "update"],
                       check=True, stdout=subprocess.DEVNULL)
    return lists


def index_file(lists: str, suffix: str) -> str | None:
    """The bookworm main Translation-<suffix> index ('_' is stored as %5f), or None."""
    found = glob.glob(os.path.join(lists, f"*bookworm_main_i18n_Translation-{suffix.replace('_', '%5f')}.*"))
    return found[0] if found else None


def segments(short: str, paragraphs: list[str]) -> list[str]:
    """The short description and the sentences of the paragraphs, whitespace-normalised (a new
    sentence starts after . ! ? only at a capital letter, so 'z. B. ein' or 'v1.2 ist' stay whole)."""
    pieces = [short]
    for paragraph in paragraphs:
        sentences = []
        for piece in SENTENCE_END.split(paragraph):
            if sentences and not piece[:1].isupper() and not sentences[-1].endswith(("。", "！", "？")):
                sentences[-1] += " " + piece
            else:
                sentences.append(piece)
        pieces += sentences
    return [s for s in map(clean, pieces) if any(c.isalpha() for c in s)]


def description_segments(lists: str) -> dict[str, list[str]]:
    """Language code -> translated description segments (untranslated English lines removed)."""
    english = read_index(index_file(lists, "en"))
    result: dict[str, list[str]] = {}
    for suffix, code in DESCRIPTION_LANGUAGES.items():
        entries = english if code == "en" else read_index(index_file(lists, suffix))
        for md5, (short, paragraphs) in entries.items():
            original = set(segments(*english[md5])) if code != "en" and md5 in english else set()
            result.setdefault(code, []).extend(s for s in segments(short, paragraphs) if s not in original)
    return result


def catalogues(cache: str, package: str) -> list[str]:
    """The gettext .mo files of a Debian package under usr/share/locale (downloaded and unpacked once into the
    cache)."""
    root = os.path.join(cache, package)
    pattern = os.path.join(root, "usr/share/locale/*/LC_MESSAGES/*.mo")
    if not glob.glob(pattern):
        os.makedirs(root, exist_ok=True)
        subprocess.run(["apt-get", "-q", "download", package], cwd=root, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["dpkg-deb", "-x", glob.glob(os.path.join(root, f"{package}_*.deb"))[0], root], check=True)
    return sorted(glob.glob(pattern))


def catalogue_segments(paths: list[str], english: bool = False) -> dict[str, list[str]]:
    """Language code (the locale's, zh_CN -> zh; variants such as sr@latin or en_GB skipped) -> the
    msgstr of every entry that differs from its msgid; with ``english`` the msgids too, as ``en``."""
    import polib

    result: dict[str, list[str]] = {}
    for path in paths:
        locale = path.split(os.sep)[-3]
        code = locale.split("_")[0]
        if "@" in locale or code == "en":
            continue
        for entry in polib.mofile(path):
            text, msgid = clean(entry.msgstr), clean(entry.msgid)
            if text and text != msgid and any(c.isalpha() for c in text):
                result.setdefault(code, []).append(text)
                if english and any(c.isalpha() for c in msgid):
                    result.setdefault("en", []).append(msgid)
    return result


def gettext_segments(cache: str) -> dict[str, list[str]]:
    """Language code -> translated GCC messages (gcc-12-locales)."""
    return catalogue_segments(catalogues(cache, "gcc-12-locales"))


def program_segments(cache: str) -> dict[str, list[str]]:
    """Language code -> translated messages of PROGRAMS (and their English msgids), the languages with at
    least MIN_SEGMENTS distinct ones that kcooc.langid knows."""
    from kcooc.langid import LanguageIdentifier

    known = set(LanguageIdentifier().languages)
    result = catalogue_segments([path for package in PROGRAMS for path in catalogues(cache, package)], english=True)
    return {code: texts for code, texts in result.items() if code in known and len(set(texts)) >= MIN_SEGMENTS}


def sample(by_language: dict[str, list[str]], per_class: int, seed: int) -> list[tuple[str, str, str]]:
    """(language, length class, segment): up to per_class distinct segments per language and class."""
    rows = []
    for code in sorted(by_language):
        distinct = sorted(set(by_language[code]))
        for length_class in ("short", "long"):
            chosen = [s for s in distinct if (len(s) < SHORT) == (length_class == "short")]
            random.Random(f"{seed}-{code}-{length_class}").shuffle(chosen)
            rows += [(code, length_class, s) for s in chosen[:per_class]]
    return rows


def write_rows(path: str, rows: list[tuple[str, str, str]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.writelines("\t".join(row) + "\n" for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="data/langid")
    parser.add_argument("--cache", default="data/cache")
    parser.add_argument("--per-class", type=int, default=500, help="segments per language and length class")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fixture", default=None, help="also write 12 segments per language and class here")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    descriptions = sample(description_segments(apt_lists(args.cache)), args.per_class, args.seed)
    gettext = sample(gettext_segments(args.cache), args.per_class, args.seed)
    programs = sample(program_segments(args.cache), args.per_class, args.seed)
    write_rows(os.path.join(args.out, "descriptions.tsv"), descriptions)
    write_rows(os.path.join(args.out, "gettext.tsv"), gettext)
    write_rows(os.path.join(args.out, "programs.tsv"), programs)
    for name, rows in (("descriptions", descriptions), ("gettext", gettext), ("programs", programs)):
        print(f"{len(rows)} segments in {len({r[0] for r in rows})} languages -> {args.out}/{name}.tsv")
    if args.fixture:
        write_rows(args.fixture, sample({code: [s for c, _, s in descriptions if c == code]
                                         for code in {r[0] for r in descriptions}}, 12, args.seed))
        print(f"fixture -> {args.fixture}")


if __name__ == "__main__":
    main()
