#!/usr/bin/env python3
"""Forward-pass cost of the shipped networks in PyTorch (the same libtorch tch links), one
thread, batch 1, 8 and 64: the module as tch ran it before (eval mode, NCHW, denormals kept),
then with denormals flushed to zero (as `nn::threads` now sets every search thread) the module,
batch norm folded into the convolutions, channels-last, bf16 autocast, and a frozen TorchScript
module after `torch.jit.optimize_for_inference`. Prints one JSON line per case (microseconds per call, the
largest difference of the outputs from the plain module). Run by `make bench-inference`.

    python3 benches/inference_torch.py models/brandubh.safetensors --board-size 7
"""
import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
import tavlei_onnx as t  # noqa: E402
import torch  # noqa: E402
import torch.fx.experimental.optimization as fx_opt  # noqa: E402


def timed(fn, x, seconds=1.0):
    with torch.inference_mode():
        for _ in range(20):
            fn(x)
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            fn(x)
            n += 1
        return (time.perf_counter() - start) / n * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("weights")
    ap.add_argument("--board-size", type=int, required=True)
    args = ap.parse_args()
    torch.set_num_threads(1)
    path = Path(args.weights)
    meta = t.read_sidecar(path)
    arch = meta["architecture"]
    net = t.build_network(arch["blocks"], arch["channels"], meta["planes"])
    t.load_weights(net, t.read_safetensors(path), path)
    net.eval()
    fused = fx_opt.fuse(net)
    s = args.board_size
    for batch in (1, 8, 64):
        x = torch.randn(batch, meta["planes"], s, s)
        with torch.inference_mode():
            ref_p, ref_v = net(x)
        cases = {"module": (net, x), "module+flush": (net, x)}
        cases["folded"] = (fused, x)
        cl = x.contiguous(memory_format=torch.channels_last)
        fused_cl = fx_opt.fuse(net).to(memory_format=torch.channels_last)
        cases["folded+channels_last"] = (fused_cl, cl)
        with torch.inference_mode():
            scripted = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.trace(net.eval(), x)))
        cases["torchscript_frozen"] = (scripted, x)

        def bf16(inp, m=fused):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return m(inp)

        cases["folded+bf16"] = (bf16, x)
        for name, (fn, inp) in cases.items():
            # the first case as before: denormals kept; every other one with them flushed
            torch.set_flush_denormal(name != "module")
            with torch.inference_mode():
                p, v = fn(inp)
            diff = max((p.float() - ref_p).abs().max().item(), (v.float() - ref_v).abs().max().item())
            us = timed(fn, inp)
            print(json.dumps({"network": str(path), "batch": batch, "case": name,
                              "us_per_call": round(us, 1), "us_per_position": round(us / batch, 1),
                              "max_diff": diff}))


if __name__ == "__main__":
    main()
