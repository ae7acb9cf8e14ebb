#!/usr/bin/env python3
"""ONNX export of tavlei networks, run by `tavlei export-onnx` (which embeds this file).

Two subcommands, each a separate process so that the second proves the file runs without PyTorch:

    export WEIGHTS.safetensors OUT.onnx --board-size S [--plane-names JSON]
        Rebuilds the network of `src/nn/model.rs` in PyTorch from the sidecar `WEIGHTS.json`,
        loads the weights by name (any missing, unexpected or mis-shaped tensor is an error naming
        it), and writes OUT.onnx: input `planes` [batch, planes, S, S], outputs `policy_logits`
        [batch, policy_size] and `value` [batch], with the checkpoint's description as metadata.
    evaluate MODEL.onnx PLANES.npy...
        Runs MODEL.onnx under onnxruntime on each float32 planes array, writes the outputs beside
        it (`PLANES.policy.npy`, `PLANES.value.npy`) and prints, as one JSON object, what the
        session sees: input and output names and shapes, and the metadata.

OUT.onnx is written where it is named; the caller writes to a temporary name and renames it.
Exit status: 0 done, 2 usage, 3 a Python package is missing, 4 the checkpoint does not fit its
sidecar, 1 anything else. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import struct
import sys
import warnings
from pathlib import Path
from typing import Any, NoReturn

# Constants of the Rust network (src/nn/model.rs, src/encode/policy.rs); the weights' shapes are
# checked against them, so a change on the Rust side cannot go unnoticed.
POLICY_CHANNELS = 72  # encode::policy::POLICY_CHANNELS: 4 directions x 18 distances
HEAD_CHANNELS = 32  # nn::model::HEAD_CHANNELS
VALUE_HIDDEN = 64  # width of value_hidden
BN_EPSILON = 1e-5  # libtorch's batch-norm default, which tch uses
CHECKPOINT_FORMAT = 1  # nn::checkpoint::CHECKPOINT_FORMAT
# Opset 17 has every layer here; pinned rather than the exporter's newest so that older ONNX
# runtimes read the file too.
OPSET = 17

EXIT_MISSING_PACKAGE = 3
EXIT_BAD_CHECKPOINT = 4


class BadCheckpoint(Exception):
    """The weights or sidecar do not describe the network they claim to."""


def fail(message: str, status: int = 1) -> NoReturn:
    print(f"tavlei_onnx: {message}", file=sys.stderr)
    sys.exit(status)


try:
    import numpy as np
except ImportError as e:
    fail(f"{sys.executable} lacks numpy ({e})", EXIT_MISSING_PACKAGE)


def require(*modules: str) -> None:
    """Imports `modules` up front so that a missing one is reported by name, all at once."""
    missing = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as e:
            missing.append(f"{name} ({e})")
    if missing:
        fail(f"{sys.executable} lacks " + ", ".join(missing), EXIT_MISSING_PACKAGE)


# safetensors: an 8-byte little-endian header length, a JSON header mapping each tensor name to
# its dtype, shape and byte range, then the data. Read with numpy to need no further package.
SAFETENSORS_DTYPES = {"F32": "<f4", "F64": "<f8", "F16": "<f2", "I64": "<i8", "I32": "<i4"}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    data = path.read_bytes()
    if len(data) < 8:
        raise BadCheckpoint(f"{path}: {len(data)} bytes, too short for a safetensors file")
    (header_len,) = struct.unpack("<Q", data[:8])
    if 8 + header_len > len(data):
        raise BadCheckpoint(f"{path}: header of {header_len} bytes runs past the file's end")
    try:
        header = json.loads(data[8 : 8 + header_len])
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadCheckpoint(f"{path}: the safetensors header is not JSON ({e})") from e
    body = memoryview(data)[8 + header_len :]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = SAFETENSORS_DTYPES.get(entry.get("dtype"))
        if dtype is None:
            raise BadCheckpoint(f"{path}: tensor {name} has dtype {entry.get('dtype')}")
        shape = tuple(entry["shape"])
        start, end = entry["data_offsets"]
        if not 0 <= start <= end <= len(body):
            raise BadCheckpoint(
                f"{path}: tensor {name}'s bytes {start}..{end} lie outside the file"
            )
        array = np.frombuffer(body[start:end], dtype=dtype)
        if array.size != int(np.prod(shape)):
            raise BadCheckpoint(f"{path}: tensor {name} holds {array.size} values, shape {shape}")
        tensors[name] = array.reshape(shape).astype(np.float32)
    return tensors


def read_sidecar(weights: Path) -> dict[str, Any]:
    sidecar = weights.with_suffix(".json")
    try:
        meta = json.loads(sidecar.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise BadCheckpoint(f"cannot read sidecar {sidecar}: {e}") from e
    if meta.get("format") != CHECKPOINT_FORMAT:
        raise BadCheckpoint(f"sidecar {sidecar}: format {meta.get('format')}, expected 1")
    for key in ("variant", "architecture", "encoding_version", "planes"):
        if key not in meta:
            raise BadCheckpoint(f"sidecar {sidecar}: no `{key}`")
    return meta


def build_network(blocks: int, channels: int, planes: int) -> Any:
    """The network of src/nn/model.rs, its modules named as the Rust VarStore paths so that the
    state dict's keys are the safetensors names."""
    import torch
    from torch import nn
    import torch.nn.functional as F

    class ConvBn(nn.Module):
        def __init__(self, cin: int, cout: int, kernel: int) -> None:
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, kernel, padding=kernel // 2, bias=False)
            self.bn = nn.BatchNorm2d(cout, eps=BN_EPSILON)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.bn(self.conv(x))

    class Block(nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            self.a = ConvBn(c, c, 3)
            self.b = ConvBn(c, c, 3)

        def forward(self, h: torch.Tensor) -> torch.Tensor:
            return F.relu(self.b(F.relu(self.a(h))) + h)

    class PolicyValueNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = ConvBn(planes, channels, 3)
            self.blocks = blocks
            for i in range(blocks):
                # `block0`, `block1`, ...: the names the Rust side gives them
                self.add_module(f"block{i}", Block(channels))
            self.policy = ConvBn(channels, HEAD_CHANNELS, 1)
            self.policy_squares = nn.Conv2d(HEAD_CHANNELS, POLICY_CHANNELS, 1)
            self.policy_global = nn.Linear(HEAD_CHANNELS, 2)
            self.value = ConvBn(channels, HEAD_CHANNELS, 1)
            self.value_hidden = nn.Linear(HEAD_CHANNELS, VALUE_HIDDEN)
            self.value_out = nn.Linear(VALUE_HIDDEN, 1)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = F.relu(self.stem(x))
            for i in range(self.blocks):
                h = getattr(self, f"block{i}")(h)
            pf = F.relu(self.policy(h))
            # channel-major [72, S, S] per position: the order of encode::policy's indices
            squares = torch.flatten(self.policy_squares(pf), 1)
            pooled = self.policy_global(pf.mean(dim=(2, 3)))
            policy = torch.cat([squares, pooled], 1)
            vf = F.relu(self.value(h)).mean(dim=(2, 3))
            value = torch.tanh(self.value_out(F.relu(self.value_hidden(vf))))
            return policy, value.squeeze(1)

    return PolicyValueNet()


def load_weights(net: Any, tensors: dict[str, np.ndarray], path: Path) -> None:
    """Copies `tensors` into `net`; every tensor must be there once, by name and shape."""
    import torch

    # BatchNorm's batch counter has no counterpart in libtorch's VarStore (and no effect in eval)
    expected = {k: v for k, v in net.state_dict().items() if not k.endswith("num_batches_tracked")}
    problems = []
    missing = sorted(set(expected) - set(tensors))
    extra = sorted(set(tensors) - set(expected))
    if missing:
        problems.append("missing " + ", ".join(missing))
    if extra:
        problems.append("unexpected " + ", ".join(extra))
    for name in sorted(set(expected) & set(tensors)):
        want, got = tuple(expected[name].shape), tensors[name].shape
        if want != got:
            problems.append(
                f"{name} has shape {list(got)}, the sidecar's architecture needs {list(want)}"
            )
    if problems:
        raise BadCheckpoint(f"{path}: weights do not fit the sidecar: " + "; ".join(problems))
    state = {name: torch.from_numpy(tensors[name].copy()) for name in expected}
    net.load_state_dict(state, strict=False)


def export(args: argparse.Namespace) -> None:
    require("torch", "onnx")
    import onnx
    import torch

    weights = Path(args.weights)
    try:
        meta = read_sidecar(weights)
        arch = meta["architecture"]
        planes = int(meta["planes"])
        net = build_network(int(arch["blocks"]), int(arch["channels"]), planes)
        load_weights(net, read_safetensors(weights), weights)
    except BadCheckpoint as e:
        fail(str(e), EXIT_BAD_CHECKPOINT)
    except OSError as e:
        fail(f"cannot read {weights}: {e}", EXIT_BAD_CHECKPOINT)
    net.eval()  # batch norms use their running statistics, as tch's inference does

    size = args.board_size
    policy_size = POLICY_CHANNELS * size * size + 2
    example = torch.zeros(2, planes, size, size)
    buffer = io.BytesIO()
    with torch.no_grad(), warnings.catch_warnings():
        # The TorchScript exporter is deprecated in favour of the dynamo one, which needs
        # onnxscript and takes seconds to trace; for this fixed graph both give the same ops.
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            net,
            (example,),
            buffer,
            dynamo=False,
            opset_version=OPSET,
            input_names=["planes"],
            output_names=["policy_logits", "value"],
            dynamic_axes={name: {0: "batch"} for name in ("planes", "policy_logits", "value")},
            do_constant_folding=True,
        )
    model = onnx.load_from_string(buffer.getvalue())
    metadata = {
        "variant": str(meta["variant"]),
        "encoding_version": str(meta["encoding_version"]),
        "planes": str(planes),
        "board_size": str(size),
        "policy_size": str(policy_size),
        "policy_channels": str(POLICY_CHANNELS),
        "architecture": json.dumps({"blocks": arch["blocks"], "channels": arch["channels"]}),
        "step": str(meta.get("step", 0)),
        "generation": str(meta.get("generation", 0)),
    }
    if args.plane_names is not None:
        metadata["plane_names"] = args.plane_names
    for key, value in metadata.items():
        model.metadata_props.add(key=key, value=value)
    model.producer_name = "tavlei"
    model.doc_string = (
        f"tavlei policy-value network for {meta['variant']}. "
        f"planes [batch, {planes}, {size}, {size}] float32 "
        f"(encoding version {meta['encoding_version']}); policy_logits [batch, {policy_size}]: "
        f"{POLICY_CHANNELS} logits per square, channel-major, then stop and pass; value [batch] "
        "in (-1, 1) for the side to move."
    )
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, args.out)


def describe(values: Any) -> list[dict[str, Any]]:
    return [{"name": v.name, "shape": list(v.shape), "type": v.type} for v in values]


def evaluate(args: argparse.Namespace) -> None:
    require("onnxruntime")
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    for planes_path in args.planes:
        planes = np.load(planes_path)
        policy, value = session.run(["policy_logits", "value"], {"planes": planes})
        stem = planes_path.removesuffix(".npy")
        np.save(f"{stem}.policy.npy", np.ascontiguousarray(policy, dtype=np.float32))
        np.save(f"{stem}.value.npy", np.ascontiguousarray(value, dtype=np.float32))
    print(
        json.dumps(
            {
                "inputs": describe(session.get_inputs()),
                "outputs": describe(session.get_outputs()),
                "metadata": session.get_modelmeta().custom_metadata_map,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ex = commands.add_parser("export", help="write a checkpoint as ONNX")
    ex.add_argument("weights", help="NAME.safetensors (its sidecar NAME.json beside it)")
    ex.add_argument("out", help="the .onnx file to write")
    ex.add_argument("--board-size", type=int, required=True, help="the variant's board side")
    ex.add_argument("--plane-names", help="JSON list of the input planes, kept as metadata")
    ev = commands.add_parser("evaluate", help="run an ONNX file under onnxruntime")
    ev.add_argument("model")
    ev.add_argument("planes", nargs="+", help="float32 .npy arrays [batch, planes, S, S]")
    args = parser.parse_args()
    if args.command == "export":
        export(args)
    else:
        evaluate(args)


if __name__ == "__main__":
    main()
