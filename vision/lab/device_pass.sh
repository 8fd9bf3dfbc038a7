#!/usr/bin/env bash
# A detector pass on a lent GPU machine in one command (docs/vision-training.md).
#
# That machine holds python3 with CUDA torch, torchvision, onnx and onnxruntime, and reaches no
# network: ultralytics and what it needs beyond that travel as wheels in .whl/ (ignored by git),
# copied there with the checkout.
#
#   here, once:  bash vision/lab/device_pass.sh fetch
#   here, for a config that trains on real photos too (real_boxes, pose_boxes; they are not
#   on that machine): bash vision/lab/device_pass.sh real CONFIG, and carry runs/device_pass/work/det_ft_data
#   there:       bash vision/lab/device_pass.sh train datasets/reader_gpu.yaml   (under 10 minutes)
#   here, after: cp -r models OUT && cp DIR/tile_obb.onnx DIR/reader.json OUT/   (DIR: what came back of $OUT)
#                python -m chickenfoot.vision.lab.quantize --src OUT --out NEW --mode tile_obb.onnx=xz \
#                    --mode half_cls.onnx=float --mode half_cls18.onnx=float
#                python -m chickenfoot.vision.lab.evaluate --models NEW --skip-rendered
#
# `train` renders the config's photos on all but two of the machine's cores, trains the detector
# stage on the GPU (CF_TRAIN_DEVICE) and writes to $OUT what comes back: the ONNX detector, its
# reader.json, the checkpoint (to train on from), the metrics and the log. Its data and runs go
# to $CF_PASS_DIR (runs/device_pass); with no $OUT (a dry run on a CPU machine, CF_TRAIN_DEVICE=cpu
# CF_SKIP_INSTALL=1: the wheels are there already) what would come back goes to $CF_PASS_DIR/out.
# $PYTHON: python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
py="${PYTHON:-python3}"
dir="${CF_PASS_DIR:-runs/device_pass}"

# ultralytics as the train extra pins it, and what the GPU machine's image lacks of its needs
WHEELS=(ultralytics==8.4.190 ultralytics-thop==2.2.3 ultralytics-platform==0.1.99 polars==1.30.0 onnxslim==0.1.98)

case "${1:-}" in
fetch)
    grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >>.git/info/exclude
    "$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        -d .whl "${WHEELS[@]}"
    du -sh .whl
    ;;
real)
    config="${2:?which config: bash vision/lab/device_pass.sh real datasets/reader_gpu_real.yaml}"
    "$py" -m chickenfoot.vision.lab.train --config "$config" --work "$dir/work" --out "$dir/models" --stage det-real
    du -sh "$dir/work"
    ;;
train)
    config="${2:?which config: bash vision/lab/device_pass.sh train datasets/reader_gpu.yaml}"
    out="${OUT:-$dir/out}"
    mkdir -p "$out"
    if [ "${CF_SKIP_INSTALL:-}" != 1 ]; then
        "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    fi
    # chickenfoot from this checkout, laid out as pyproject.toml maps it (companion/ is the package,
    # vision/ its .vision, models/ its .models), without pip: nothing to build or fetch there
    src="$(mkdir -p "$dir" && cd "$dir" && pwd)/src"
    rm -rf "$src" && mkdir -p "$src/chickenfoot"
    for f in companion/*; do ln -s "$PWD/$f" "$src/chickenfoot/"; done
    ln -s "$PWD/vision" "$src/chickenfoot/vision" && ln -s "$PWD/models" "$src/chickenfoot/models"
    export PYTHONPATH="/tmp/site:$src${PYTHONPATH:+:$PYTHONPATH}"
    "$py" -c "import chickenfoot.vision.lab.train as t; print('chickenfoot from', t.__file__)"
    cores=$(nproc)
    export CF_TRAIN_DEVICE="${CF_TRAIN_DEVICE:-0}"
    export CF_RENDER_JOBS="${CF_RENDER_JOBS:-$((cores > 2 ? cores - 2 : 1))}"
    export CF_TRAIN_WORKERS="${CF_TRAIN_WORKERS:-$((cores > 4 ? cores - 4 : 0))}"
    export CF_TRAIN_THREADS="${CF_TRAIN_THREADS:-4}"
    export PYTHONUNBUFFERED=1
    work="$dir/work"
    models="$dir/models"
    rm -rf "$models" && mkdir -p "$models" && cp models/*.onnx* models/reader.json "$models"/
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
    status=0
    "$py" -m chickenfoot.vision.lab.train --config "$config" --work "$work" --out "$models" --stage det \
        2>&1 | tee "$out/train.log" || status=$?
    cp "$models/tile_obb.onnx" "$models/reader.json" "$models/train_metrics.json" "$out"/ 2>/dev/null || true
    best=$(ls -t "$work"/runs/det_ft*/weights/best.pt 2>/dev/null | head -n 1 || true)
    [ -n "$best" ] && cp "$best" "$out/best.pt"
    ls -la "$out"
    exit "$status"
    ;;
*)
    echo "usage: bash vision/lab/device_pass.sh fetch | real CONFIG | train CONFIG" >&2
    exit 2
    ;;
esac
