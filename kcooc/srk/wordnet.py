"""WordNet 3.0 from a plain dictionary folder (Debian ``wordnet-base``) through NLTK's reader.

NLTK needs the dictionary files inside one of its data roots and a ``lexnames`` file that Debian
does not ship; ``load`` copies the files once into a cache folder and writes ``lexnames`` from the
table of lexicographer files in ``lexnames(5WN)`` (the WordNet 3.0 manual page).
"""

from __future__ import annotations

import functools
import os
import shutil
import warnings

from ..errors import InputError
from ..extras import import_optional

DEFAULT_DICT = "/usr/share/wordnet"
DICT_FILES = ["data.adj", "data.adv", "data.noun", "data.verb", "index.adj", "index.adv", "index.noun",
              "index.verb", "adj.exc", "adv.exc", "noun.exc", "verb.exc"]
LEXNAMES = ("adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
            "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location "
            "noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process "
            "noun.quantity noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change "
            "verb.cognition verb.communication verb.competition verb.consumption verb.contact verb.creation "
            "verb.emotion verb.motion verb.perception verb.possession verb.social verb.stative verb.weather "
            "adj.ppl").split()
CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def cache_root() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kcooc", "nltk")


def _prepare(dict_dir: str, root: str) -> str:
    """Copy the dictionary into ``root/corpora/wordnet`` (once) and write ``lexnames``."""
    target = os.path.join(root, "corpora", "wordnet")
    missing = [f for f in DICT_FILES if not os.path.isfile(os.path.join(dict_dir, f))]
    if missing:
        raise InputError(f"{dict_dir}: not a WordNet 3.0 dictionary (missing {', '.join(missing)}); "
                         "install Debian's wordnet-base or set srk.wordnet / KCOOC_WORDNET")
    os.makedirs(target, exist_ok=True)
    for name in DICT_FILES:
        source, copy = os.path.join(dict_dir, name), os.path.join(target, name)
        if not os.path.exists(copy) or os.path.getsize(copy) != os.path.getsize(source):
            shutil.copyfile(source, copy + ".tmp")
            os.replace(copy + ".tmp", copy)
    with open(os.path.join(target, "lexnames.tmp"), "w") as f:
        f.writelines(f"{i:02d}\t{name}\t{CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))
    os.replace(os.path.join(target, "lexnames.tmp"), os.path.join(target, "lexnames"))
    return target


@functools.lru_cache(maxsize=2)
def load(dict_dir: str | None = None):
    """An NLTK ``WordNetCorpusReader`` on ``dict_dir`` (default: $KCOOC_WORDNET or Debian's folder)."""
    dict_dir = dict_dir or os.environ.get("KCOOC_WORDNET") or DEFAULT_DICT
    nltk = import_optional("nltk", "by the WordNet word types")
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class Reader(WordNetCorpusReader):
        def map_wn(self, version="wordnet"):  # no sense index to map from: this *is* WordNet 3.0
            return None

    root = cache_root()
    folder = _prepare(dict_dir, root)
    if root not in nltk.data.path:
        nltk.data.path.insert(0, root)  # NLTK only opens files under its data roots
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": not used
        return Reader(folder, None)
