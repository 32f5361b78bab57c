"""What the filtering benchmark (eval_filtering.py) is made of, and what its page (page.py) names: the
in-distribution kinds of noise, the training family closest to each kind, the held-out test sets and the
learned score's two rows."""

KINDS = [  # the in-distribution kinds of noise (eval_filtering.inject_noise)
    "neighbour", "wrong_language", "source_language", "partial", "joined", "boilerplate", "numbers"]
# test sets first scored after the choices the main page's development runs made (make filter-eval-heldout)
HELD_OUT = ("es-programs", "sv-programs", "hu-programs", "el-programs")
HELD_OUT_TITLES = {"en-" + name.replace("-", " ") for name in HELD_OUT}  # as title() writes them
# evaluation kind -> the family of training noise (noise.NOISE_FAMILIES) closest to it: left out of training for its
# leave-one-family-out AUC
CLOSEST_FAMILY = {"neighbour": "misaligned", "wrong_language": "untranslated", "source_language": "untranslated",
                  "partial": "length", "joined": "length", "boilerplate": "misaligned", "numbers": "numbers",
                  "misordered": "order", "mojibake": "untranslated", "spacing": "length", "markup": "numbers",
                  "repeated": "length", "length_matched": "misaligned", "romanised": "untranslated"}
LEARNED = "kcooc learned (default)"
LOFO = "kcooc learned, closest family left out"
