#!/usr/bin/env python3
"""PyTorch reference for `benches/train.rs`: the tavlei policy-value network (src/nn/model.rs),
its loss (src/train/trainer.rs) and Adam with coupled L2 (src/train/optimizer.rs), trained on a
fixed random batch. Prints one JSON line with the samples per second. The planes are NCHW
(PyTorch's default) unless `--channels-last`.

Run with the venv the crate links against (`eval "$(make -s env)"` names it), e.g.
    "$TAVLEI_VENV/bin/python" benches/train_reference.py --threads 2
"""

import argparse
import json
import time

import torch
from torch import nn
import torch.nn.functional as F

PLANES = 16  # encode::Encoding::CURRENT.planes()
POLICY_CHANNELS = 72  # encode::policy::POLICY_CHANNELS
HEAD_CHANNELS = 32  # nn::model::HEAD_CHANNELS


class ConvBn(nn.Module):
    def __init__(self, cin, cout, kernel):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, padding=kernel // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return self.bn(self.conv(x))


class PolicyValueNet(nn.Module):
    def __init__(self, blocks, channels):
        super().__init__()
        c = channels
        self.stem = ConvBn(PLANES, c, 3)
        self.blocks = nn.ModuleList(
            nn.ModuleList([ConvBn(c, c, 3), ConvBn(c, c, 3)]) for _ in range(blocks)
        )
        self.policy_features = ConvBn(c, HEAD_CHANNELS, 1)
        self.policy_squares = nn.Conv2d(HEAD_CHANNELS, POLICY_CHANNELS, 1)
        self.policy_global = nn.Linear(HEAD_CHANNELS, 2)
        self.value_features = ConvBn(c, HEAD_CHANNELS, 1)
        self.value_hidden = nn.Linear(HEAD_CHANNELS, 64)
        self.value_out = nn.Linear(64, 1)

    def forward(self, x):
        h = F.relu(self.stem(x))
        for a, b in self.blocks:
            y = F.relu(a(h))
            h = F.relu(b(y) + h)
        n = x.shape[0]
        pf = F.relu(self.policy_features(h))
        squares = self.policy_squares(pf).reshape(n, -1)
        glob = self.policy_global(pf.mean(dim=(2, 3)))
        policy = torch.cat([squares, glob], 1)
        vf = F.relu(self.value_features(h))
        v = torch.tanh(self.value_out(F.relu(self.value_hidden(vf.mean(dim=(2, 3))))))
        return policy, v.reshape(n)


def init_like_tch(net):
    """tch's defaults, which tavlei's network uses: Kaiming-uniform (ReLU gain, fan-in) weights for
    convolutions and linear layers, zero convolution biases, linear biases uniform in
    +-1/sqrt(fan_in), batch-norm scales uniform in [0, 1) and shifts zero. The training
    trajectory, and so the arithmetic a step meets, is then statistically the same."""
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_uniform_(m.weight, a=0.0, mode="fan_in", nonlinearity="relu")
                if m.bias is not None:
                    if isinstance(m, nn.Linear):
                        bound = 1.0 / m.in_features**0.5
                        m.bias.uniform_(-bound, bound)
                    else:
                        m.bias.zero_()
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.0, 1.0)
                m.bias.zero_()


def loss_fn(net, planes, policy, legal, value, value_weight=1.0):
    logits, v = net(planes)
    masked = logits + (legal - 1.0) * 1e9
    log_p = torch.log_softmax(masked, 1)
    policy_loss = -(policy * log_p).sum(1).mean()
    value_loss = (v - value).square().mean()
    return policy_loss + value_loss * value_weight


def random_batch(batch, size, legal_moves, generator):
    p = POLICY_CHANNELS * size * size + 2
    planes = (torch.rand(batch, PLANES, size, size, generator=generator) < 0.5).float()
    chosen = torch.rand(batch, p, generator=generator).topk(legal_moves, dim=1).indices
    legal = torch.zeros(batch, p).scatter_(1, chosen, 1.0)
    target = torch.zeros(batch, p).scatter_(1, chosen[:, :1], 1.0)
    value = torch.randint(-1, 2, (batch,), generator=generator).float()
    return planes, target, legal, value


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--legal", type=int, default=30, help="legal moves per row")
    ap.add_argument("--threads", type=int, default=0, help="intra-op threads (0: torch default)")
    ap.add_argument(
        "--channels-last",
        action="store_true",
        help="feed the planes channels-last, as tavlei's trainer does on the CPU",
    )
    args = ap.parse_args()

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    gen = torch.Generator().manual_seed(11)
    net = PolicyValueNet(args.blocks, args.channels).train()
    init_like_tch(net)
    opt = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-4)
    planes, policy, legal, value = random_batch(args.batch, args.size, args.legal, gen)
    if args.channels_last:
        planes = planes.contiguous(memory_format=torch.channels_last)

    def step():
        loss = loss_fn(net, planes, policy, legal, value)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    for _ in range(args.warmup):
        step()
    start = time.perf_counter()
    for _ in range(args.steps):
        loss = step()
    seconds = time.perf_counter() - start
    print(
        json.dumps(
            {
                "impl": "pytorch",
                "torch": torch.__version__,
                "batch": args.batch,
                "steps": args.steps,
                "samples_per_s": args.batch * args.steps / seconds,
                "step_ms": 1e3 * seconds / args.steps,
                "threads": torch.get_num_threads(),
                "layout": "channels_last" if args.channels_last else "nchw",
                "loss": float(loss.item()),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
