"""Reproduction-scale runs (``-m slow``; `make test-all`): the README's main job end to end.

Builds the real dialogue pairs from the chitchat-dataset package, trains PHSIC with WordLlama
sentence vectors and a cosine kernel, ranks ten candidate responses per held-out context and
checks the metrics the README promises (Yokoi et al. 2018, Table 5 analogue). Minutes, not seconds.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def run(*args: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_demo_ranks_held_out_responses_as_the_readme_says(tmp_path):
    pytest.importorskip("chitchat_dataset")
    pytest.importorskip("wordllama")
    data = tmp_path / "dialogue"
    run("-m", "scripts.experiments.phsic.data_dialogue", str(data), cwd=ROOT)
    model, ranked = tmp_path / "demo.npz", tmp_path / "ranked.tsv"
    run("-m", "kcooc", "phsic", "train", "-q", "-c", "configs/dialogue-wordllama.yaml",
        "-i", str(data / "train.tsv"), "-o", str(model), cwd=ROOT)
    run("-m", "kcooc", "phsic", "score", "-q", "-m", str(model), "-i", str(data / "test-candidates.tsv"),
        "--candidates", "-o", str(ranked), cwd=ROOT)
    line = run("-m", "scripts.experiments.phsic.ranked_metrics", str(ranked), cwd=ROOT)
    found = re.search(r"(\d+) contexts x 10 candidates: ROC-AUC ([\d.]+); MRR ([\d.]+); "
                      r"Recall@1 ([\d.]+), Recall@2 ([\d.]+)", line)
    assert found, line
    contexts, auc, mrr, r1, r2 = int(found[1]), *map(float, found.group(2, 3, 4, 5))
    # README: 2,765 questions, about 0.73; 0.55; 0.37, 0.53 (chance: 0.5; 0.29; 0.1, 0.2).
    assert contexts == 2765
    assert 0.70 <= auc <= 0.76 and 0.52 <= mrr <= 0.58 and 0.34 <= r1 <= 0.40 and 0.50 <= r2 <= 0.56, line
