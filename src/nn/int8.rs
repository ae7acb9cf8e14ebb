//! The network's forward pass in 8-bit integers, on the CPU (issue 44, item 0). Self-play spends
//! about nine tenths of its time in forward passes, and libtorch's f32 convolutions already run
//! near a core's f32 peak; 8-bit products go four to a 32-bit lane. Here every convolution of the
//! folded network (`nn::folded`) multiplies 8-bit activations (unsigned: each convolution's
//! input is a ReLU's output or the input planes, all >= 0, scaled per layer to the largest value
//! seen on calibration positions) by 8-bit weights (signed, scaled per output channel), and sums
//! in 32-bit integers: with the AVX-512 VNNI dot-product instruction where the CPU has it, with
//! AVX2's 16-bit multiply-adds (bytes widened, so no sum saturates) where it has only AVX2, and by
//! the same integer arithmetic in plain Rust elsewhere (all bit-identical, tested). The
//! residual stream, biases, pooling, the small linear layers and the outputs stay in f32, and
//! the per-square policy logits are computed only where asked (a search wants its legal moves'),
//! as f32 dot products of the policy features. The outputs differ from f32's by the quantisation (measured against it in the tests and
//! `benches/inference.rs`), so int8 is a choice a run makes and reports (`Precision::Int8`).

use std::sync::Arc;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::encode::policy::POLICY_CHANNELS;
use crate::encode::Encoding;
use crate::rules::{Position, Variant};

/// Output channels one 512-bit accumulator holds (16 lanes of i32).
const LANES: usize = 16;
/// Input channels one lane's dot product takes (4 bytes of a 32-bit lane).
const DEPTH: usize = 4;
/// Output channels one 256-bit accumulator holds (8 lanes of i32), for the AVX2 kernel, whose
/// lanes each take two input channels (two 16-bit products).
const LANES_AVX2: usize = 8;

/// The environment variable that picks an int8 kernel other than the fastest.
pub const KERNEL_VAR: &str = "TAVLEI_INT8_KERNEL";

/// Which instructions compute a convolution's integer sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// AVX-512 VNNI `vpdpbusd`: 64 byte products an instruction.
    Vnni,
    /// AVX2 `vpmaddwd` on bytes widened to 16 bits: 16 products an instruction.
    Avx2,
    /// Plain Rust, on any CPU.
    Plain,
}

impl Kernel {
    /// The kernel int8 networks use: the fastest this CPU runs, or the one the environment
    /// variable `TAVLEI_INT8_KERNEL` names (`vnni`, `avx2`, `plain`; to compare them, as the
    /// benchmarks do) where the CPU runs it (checked once).
    pub fn best() -> Kernel {
        static BEST: std::sync::OnceLock<Kernel> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| {
            let fastest = [Kernel::Vnni, Kernel::Avx2]
                .into_iter()
                .find(|k| k.available())
                .unwrap_or(Kernel::Plain);
            let Ok(name) = std::env::var(KERNEL_VAR) else {
                return fastest;
            };
            match Kernel::named(&name) {
                Some(k) if k.available() => k,
                _ => {
                    eprintln!(
                        "tavlei: {KERNEL_VAR}={name:?} is not a kernel this CPU runs \
                         (vnni, avx2, plain); using {fastest:?}"
                    );
                    fastest
                }
            }
        })
    }

    fn named(name: &str) -> Option<Kernel> {
        match name {
            "vnni" => Some(Kernel::Vnni),
            "avx2" => Some(Kernel::Avx2),
            "plain" => Some(Kernel::Plain),
            _ => None,
        }
    }

    /// Whether this CPU has the kernel's instructions.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Kernel::Vnni => {
                    is_x86_feature_detected!("avx512f")
                        && is_x86_feature_detected!("avx512bw")
                        && is_x86_feature_detected!("avx512vnni")
                        && is_x86_feature_detected!("fma")
                }
                Kernel::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
                Kernel::Plain => true,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Kernel::Plain
        }
    }

    /// What `tavlei info` says of it.
    pub fn describe(self) -> &'static str {
        match self {
            Kernel::Vnni => "AVX-512 VNNI",
            Kernel::Avx2 => {
                "AVX2 (16-bit multiply-adds: a quarter of VNNI's products an instruction)"
            }
            Kernel::Plain => "plain Rust (no AVX2 or AVX-512 VNNI on this CPU: slower than f32)",
        }
    }
}

fn round_up(n: usize, m: usize) -> usize {
    n.div_ceil(m) * m
}

/// A convolution (1x1 or 3x3, stride 1, "same" padding) with 8-bit weights, reading a padded
/// grid of 8-bit activations.
#[derive(Clone, Debug)]
pub(crate) struct QConv {
    /// The kernel side: 1 or 3.
    kernel: usize,
    /// Input channels, padded to `LANES` (the activation grid's stride: a trunk's grid is read
    /// by the next convolution with the stride the last one wrote).
    cin: usize,
    /// Output channels, and padded to `LANES` (the output's stride).
    cout: usize,
    cout_padded: usize,
    /// `[cout_padded / LANES][kernel²][cin / DEPTH][LANES][DEPTH]`
    weights: Vec<i8>,
    /// The same weights for the AVX2 kernel, widened:
    /// `[cout_padded / LANES_AVX2][kernel²][cin / 2][LANES_AVX2][2]`
    weights_avx2: Vec<i16>,
    /// Per padded output channel: the input's scale times the channel's weight scale, and the
    /// bias (zero on padding).
    scale: Vec<f32>,
    bias: Vec<f32>,
}

impl QConv {
    /// From f32 weights `[cout][cin][kernel][kernel]` and biases, reading activations stored
    /// at `input_scale` per unit.
    pub(crate) fn new(
        weights: &[f32],
        bias: &[f32],
        (cin, cout, kernel): (usize, usize, usize),
        input_scale: f32,
    ) -> QConv {
        assert_eq!(weights.len(), cout * cin * kernel * kernel, "weights");
        assert_eq!(bias.len(), cout, "biases");
        let (cin_padded, cout_padded) = (round_up(cin, LANES), round_up(cout, LANES));
        let taps = kernel * kernel;
        let per_out = cin * taps;
        let mut q = vec![0i8; cout_padded * taps * cin_padded];
        let mut wide = vec![0i16; cout_padded * taps * cin_padded];
        let (mut scale, mut biases) = (vec![0.0f32; cout_padded], vec![0.0f32; cout_padded]);
        for oc in 0..cout {
            let w = &weights[oc * per_out..(oc + 1) * per_out];
            let largest = w.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            let w_scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
            scale[oc] = input_scale * w_scale;
            biases[oc] = bias[oc];
            let (block, lane) = (oc / LANES, oc % LANES);
            for ic in 0..cin {
                for t in 0..taps {
                    let value = (w[ic * taps + t] / w_scale).round().clamp(-127.0, 127.0) as i8;
                    let group = ic / DEPTH;
                    let at = (((block * taps + t) * (cin_padded / DEPTH) + group) * LANES + lane)
                        * DEPTH
                        + ic % DEPTH;
                    q[at] = value;
                    let at = (((oc / LANES_AVX2 * taps + t) * (cin_padded / 2) + ic / 2)
                        * LANES_AVX2
                        + oc % LANES_AVX2)
                        * 2
                        + ic % 2;
                    wide[at] = i16::from(value);
                }
            }
        }
        QConv {
            kernel,
            cin: cin_padded,
            cout,
            cout_padded,
            weights: q,
            weights_avx2: wide,
            scale,
            bias: biases,
        }
    }

    /// The grid cells (row, column offsets into a grid padded by one) each tap reads.
    fn taps(&self) -> impl Iterator<Item = (usize, usize)> {
        let (k, first) = (self.kernel, if self.kernel == 1 { 1 } else { 0 });
        (0..k * k).map(move |t| (first + t / k, first + t % k))
    }

    /// The convolution of `input` (a `(size + 2)²` grid of `cin` channels, zero on the border)
    /// into `out` (`size²` squares of `cout_padded` channels, row-major), in f32.
    /// `kernel` must be available on this CPU (`Int8Net` checks when it is chosen).
    pub(crate) fn run(&self, input: &[u8], size: usize, out: &mut [f32], kernel: Kernel) {
        assert!(
            input.len() >= (size + 2) * (size + 2) * self.cin,
            "input grid"
        );
        assert!(out.len() >= size * size * self.cout_padded, "output");
        match kernel {
            // SAFETY (both): the CPU has the instructions (checked when the kernel was chosen),
            // and the asserts bound every index the kernel reads or writes
            Kernel::Vnni => unsafe { self.run_vnni(input, size, out) },
            Kernel::Avx2 => unsafe { self.run_avx2(input, size, out) },
            Kernel::Plain => self.run_scalar(input, size, out),
        }
    }

    fn run_scalar(&self, input: &[u8], size: usize, out: &mut [f32]) {
        let (groups, taps) = (self.cin / DEPTH, self.kernel * self.kernel);
        for y in 0..size {
            for x in 0..size {
                let o = &mut out[(y * size + x) * self.cout_padded..][..self.cout_padded];
                for (oc, slot) in o.iter_mut().enumerate() {
                    let (block, lane) = (oc / LANES, oc % LANES);
                    let mut acc = 0i32;
                    for (t, (dy, dx)) in self.taps().enumerate() {
                        let base = ((y + dy) * (size + 2) + x + dx) * self.cin;
                        for g in 0..groups {
                            let w = (((block * taps + t) * groups + g) * LANES + lane) * DEPTH;
                            for i in 0..DEPTH {
                                acc += i32::from(input[base + g * DEPTH + i])
                                    * i32::from(self.weights[w + i]);
                            }
                        }
                    }
                    *slot = (acc as f32).mul_add(self.scale[oc], self.bias[oc]);
                }
            }
        }
    }

    /// The same sums with `vpdpbusd`: each lane of an accumulator is one output channel, each
    /// instruction adds four input channels' products to all sixteen. Squares go eight at a
    /// time, each with its own accumulator, so that a weight vector loaded once serves eight
    /// instructions that do not wait for each other.
    #[target_feature(enable = "avx512f,avx512vnni")]
    unsafe fn run_vnni(&self, input: &[u8], size: usize, out: &mut [f32]) {
        for (first, eight) in square_groups(size * size) {
            if eight {
                self.squares_vnni::<8>(input, size, first, out);
            } else {
                self.squares_vnni::<1>(input, size, first, out);
            }
        }
    }

    /// Output squares `first..first + N` (row-major), every output channel.
    #[target_feature(enable = "avx512f,avx512vnni")]
    unsafe fn squares_vnni<const N: usize>(
        &self,
        input: &[u8],
        size: usize,
        first: usize,
        out: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        let (groups, taps) = (self.cin / DEPTH, self.kernel * self.kernel);
        let (w, inp, o) = (self.weights.as_ptr(), input.as_ptr(), out.as_mut_ptr());
        let cells = grid_cells::<N>(size, first);
        for block in 0..self.cout_padded / LANES {
            let mut acc = [_mm512_setzero_si512(); N];
            for (t, (dy, dx)) in self.taps().enumerate() {
                let shift = dy * (size + 2) + dx;
                let weights = w.add((block * taps + t) * groups * LANES * DEPTH);
                for g in 0..groups {
                    let b = _mm512_loadu_si512(weights.add(g * LANES * DEPTH) as *const _);
                    for j in 0..N {
                        let at = (cells[j] + shift) * self.cin + g * DEPTH;
                        let four = (inp.add(at) as *const i32).read_unaligned();
                        acc[j] = _mm512_dpbusd_epi32(acc[j], _mm512_set1_epi32(four), b);
                    }
                }
            }
            let at = block * LANES;
            let scale = _mm512_loadu_ps(self.scale.as_ptr().add(at));
            let bias = _mm512_loadu_ps(self.bias.as_ptr().add(at));
            for (j, a) in acc.iter().enumerate() {
                let value = _mm512_fmadd_ps(_mm512_cvtepi32_ps(*a), scale, bias);
                _mm512_storeu_ps(o.add((first + j) * self.cout_padded + at), value);
            }
        }
    }

    /// The same sums with `vpmaddwd`: the input's bytes are first widened to pairs of 16-bit
    /// values (two input channels in one 32-bit word), so that each instruction multiplies
    /// one pair by the two weights of eight output channels and adds the two products in
    /// 32 bits, where no sum of byte products can saturate (`vpmaddubsw`'s 16-bit sums could).
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run_avx2(&self, input: &[u8], size: usize, out: &mut [f32]) {
        let pairs: Vec<u32> = input[..(size + 2) * (size + 2) * self.cin]
            .chunks_exact(2)
            .map(|two| u32::from(two[0]) | u32::from(two[1]) << 16)
            .collect();
        for (first, eight) in square_groups(size * size) {
            if eight {
                self.squares_avx2::<8>(&pairs, size, first, out);
            } else {
                self.squares_avx2::<1>(&pairs, size, first, out);
            }
        }
    }

    /// Output squares `first..first + N` (row-major), every output channel, from the input
    /// grid as 16-bit pairs.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn squares_avx2<const N: usize>(
        &self,
        pairs: &[u32],
        size: usize,
        first: usize,
        out: &mut [f32],
    ) {
        use std::arch::x86_64::*;
        let (per_cell, taps) = (self.cin / 2, self.kernel * self.kernel);
        let (w, inp, o) = (self.weights_avx2.as_ptr(), pairs.as_ptr(), out.as_mut_ptr());
        let cells = grid_cells::<N>(size, first);
        for block in 0..self.cout_padded / LANES_AVX2 {
            let mut acc = [_mm256_setzero_si256(); N];
            for (t, (dy, dx)) in self.taps().enumerate() {
                let shift = dy * (size + 2) + dx;
                let weights = w.add((block * taps + t) * per_cell * LANES_AVX2 * 2);
                for p in 0..per_cell {
                    let b = _mm256_loadu_si256(weights.add(p * LANES_AVX2 * 2) as *const _);
                    for j in 0..N {
                        let pair = *inp.add((cells[j] + shift) * per_cell + p);
                        let a = _mm256_set1_epi32(pair as i32);
                        acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(a, b));
                    }
                }
            }
            let at = block * LANES_AVX2;
            let scale = _mm256_loadu_ps(self.scale.as_ptr().add(at));
            let bias = _mm256_loadu_ps(self.bias.as_ptr().add(at));
            for (j, a) in acc.iter().enumerate() {
                let value = _mm256_fmadd_ps(_mm256_cvtepi32_ps(*a), scale, bias);
                _mm256_storeu_ps(o.add((first + j) * self.cout_padded + at), value);
            }
        }
    }
}

/// The squares of a `squares`-square board as the kernels take them: groups of eight (their
/// first square, `true`), then the rest one at a time (`false`).
#[inline(always)]
fn square_groups(squares: usize) -> impl Iterator<Item = (usize, bool)> {
    let whole = squares / 8 * 8;
    (0..whole)
        .step_by(8)
        .map(|first| (first, true))
        .chain((whole..squares).map(|first| (first, false)))
}

/// Squares `first..first + N` (row-major on a `size`-square board): each one's cell in the
/// padded grid (its top-left tap).
#[inline(always)]
fn grid_cells<const N: usize>(size: usize, first: usize) -> [usize; N] {
    std::array::from_fn(|j| {
        let (y, x) = ((first + j) / size, (first + j) % size);
        y * (size + 2) + x
    })
}

/// Writes `values` (`size²` squares of `stride` channels, the first `channels` of them, none
/// negative after a ReLU) into the interior of a padded grid of `grid_stride` channels as bytes
/// at `1 / inv_scale` per unit, rounded, the largest clipped to 255.
#[inline(always)]
fn quantize(
    values: &[f32],
    (size, stride, channels): (usize, usize, usize),
    inv_scale: f32,
    grid: &mut [u8],
    grid_stride: usize,
) {
    for y in 0..size {
        for x in 0..size {
            let from = &values[(y * size + x) * stride..][..channels];
            let to = &mut grid[((y + 1) * (size + 2) + x + 1) * grid_stride..][..channels];
            for (t, &v) in to.iter_mut().zip(from) {
                *t = to_byte(v * inv_scale);
            }
        }
    }
}

/// A value in byte units, rounded half up, below 0 as 0 and above 255 as 255. Not
/// `f32::round`, a library call where the compiler may not assume SSE4.1: this runs on every
/// activation.
#[inline(always)]
fn to_byte(units: f32) -> u8 {
    // `max` turns a NaN into 0 (`clamp` would keep it), so the value is in [0, 255] and
    // truncating it is defined
    #[allow(clippy::manual_clamp)]
    let rounded = (units + 0.5).max(0.0).min(255.0);
    // SAFETY: finite and within i32's range (just above); unlike a saturating `as`, this
    // compiles to one vector instruction
    unsafe { rounded.to_int_unchecked::<i32>() as u8 }
}

#[inline(always)]
fn relu(values: &mut [f32]) {
    for v in values {
        *v = v.max(0.0);
    }
}

/// A small fully connected layer in f32: `out = W x + b`, `W` row-major `[out][in]`.
#[derive(Clone, Debug)]
pub(crate) struct Linear {
    pub(crate) weights: Vec<f32>,
    pub(crate) bias: Vec<f32>,
}

impl Linear {
    #[inline(always)]
    fn apply(&self, x: &[f32]) -> Vec<f32> {
        self.bias
            .iter()
            .enumerate()
            .map(|(o, b)| {
                let row = &self.weights[o * x.len()..(o + 1) * x.len()];
                b + row.iter().zip(x).map(|(w, v)| w * v).sum::<f32>()
            })
            .collect()
    }
}

/// The largest activation of each quantised tensor on calibration positions, in the order
/// `Int8Net::new` reads them: the trunk after the stem, then each block's middle and output.
pub(crate) type Maxima = Vec<f32>;

/// A convolution's weights `[cout][cin][k][k]` and bias in f32, with `(cin, cout, k)`.
pub(crate) type FloatConv = (Vec<f32>, Vec<f32>, (usize, usize, usize));

/// The folded network's weights in f32, as `Int8Net::new` takes them.
pub(crate) struct FloatLayers {
    pub(crate) stem: FloatConv,
    pub(crate) blocks: Vec<[FloatConv; 2]>,
    pub(crate) policy_features: FloatConv,
    pub(crate) policy_squares: FloatConv,
    pub(crate) policy_global: Linear,
    pub(crate) value_features: FloatConv,
    pub(crate) value_hidden: Linear,
    pub(crate) value_out: Linear,
}

/// The network in 8-bit form.
#[derive(Clone, Debug)]
pub struct Int8Net {
    stem: QConv,
    /// Each block's two convolutions.
    blocks: Vec<(QConv, QConv)>,
    /// Units per byte of the trunk after the stem and of each block's middle and output: the
    /// inverse is what quantising multiplies by.
    trunk_scales: Vec<f32>,
    policy_features: QConv,
    /// The per-square policy logits, `[channel][feature]`, in f32: only the logits of the legal
    /// moves are wanted (about a hundred of `POLICY_CHANNELS` times the squares), so they are
    /// dot products of the features, not a convolution over the board.
    policy_squares: Linear,
    policy_global: Linear,
    value_features: QConv,
    value_hidden: Linear,
    value_out: Linear,
    /// The convolutions' kernel: the CPU's fastest unless chosen (tests compare them).
    kernel: Kernel,
}

/// The input planes are in [0, 1]: a byte is 1/255.
const INPUT_SCALE: f32 = 1.0 / 255.0;

fn unit_scale(largest: f32) -> f32 {
    if largest > 0.0 {
        largest / 255.0
    } else {
        1.0
    }
}

impl Int8Net {
    pub(crate) fn new(layers: FloatLayers, maxima: &[f32]) -> Int8Net {
        let blocks_n = layers.blocks.len();
        assert_eq!(
            maxima.len(),
            2 * blocks_n + 1,
            "a maximum per quantised tensor"
        );
        let scales: Vec<f32> = maxima.iter().map(|&m| unit_scale(m)).collect();
        let conv = |(w, b, shape): &FloatConv, s| QConv::new(w, b, *shape, s);
        let mut trunk_scales = vec![scales[0]];
        let mut blocks = Vec::with_capacity(blocks_n);
        for (i, [a, b]) in layers.blocks.iter().enumerate() {
            let (before, middle, after) = (scales[2 * i], scales[2 * i + 1], scales[2 * i + 2]);
            blocks.push((conv(a, before), conv(b, middle)));
            trunk_scales.extend([middle, after]);
        }
        let trunk_out = scales[2 * blocks_n];
        Int8Net {
            stem: conv(&layers.stem, INPUT_SCALE),
            blocks,
            trunk_scales,
            policy_features: conv(&layers.policy_features, trunk_out),
            policy_squares: Linear {
                weights: layers.policy_squares.0,
                bias: layers.policy_squares.1,
            },
            policy_global: layers.policy_global,
            value_features: conv(&layers.value_features, trunk_out),
            value_hidden: layers.value_hidden,
            value_out: layers.value_out,
            kernel: Kernel::best(),
        }
    }

    /// The same network computing its sums with `kernel` (for tests: all are bit-identical).
    /// Panics when this CPU lacks the kernel's instructions.
    pub fn with_kernel(mut self, kernel: Kernel) -> Int8Net {
        assert!(
            kernel.available(),
            "{kernel:?} is not available on this CPU"
        );
        self.kernel = kernel;
        self
    }

    /// The policy logits at the indices `wanted[k]` (of the `POLICY_CHANNELS * size² + 2` that
    /// `FoldedNet::forward` gives, e.g. the legal moves') and the value of each of `n`
    /// positions given as input planes (`planes * size²` floats each, plane-major).
    pub fn forward(
        &self,
        input: &[f32],
        n: usize,
        size: usize,
        wanted: &[&[usize]],
    ) -> (Vec<Vec<f32>>, Vec<f32>) {
        assert_eq!(wanted.len(), n, "the logits wanted of each position");
        match self.kernel {
            // SAFETY (both): the CPU has the instructions (checked when the kernel was chosen)
            Kernel::Vnni => unsafe { self.forward_avx512(input, n, size, wanted) },
            Kernel::Avx2 => unsafe { self.forward_avx2(input, n, size, wanted) },
            Kernel::Plain => self.forward_with(input, n, size, wanted),
        }
    }

    /// `forward_with` compiled for AVX-512: the element-wise loops around the kernels (ReLU,
    /// the residual sums, quantising) run sixteen wide. Element-wise, so the results are the
    /// plain build's to the bit.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni,fma")]
    unsafe fn forward_avx512(
        &self,
        input: &[f32],
        n: usize,
        size: usize,
        wanted: &[&[usize]],
    ) -> (Vec<Vec<f32>>, Vec<f32>) {
        self.forward_with(input, n, size, wanted)
    }

    /// `forward_with` compiled for AVX2, eight wide (bit-identical, as above).
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2(
        &self,
        input: &[f32],
        n: usize,
        size: usize,
        wanted: &[&[usize]],
    ) -> (Vec<Vec<f32>>, Vec<f32>) {
        self.forward_with(input, n, size, wanted)
    }

    #[inline(always)]
    fn forward_with(
        &self,
        input: &[f32],
        n: usize,
        size: usize,
        wanted: &[&[usize]],
    ) -> (Vec<Vec<f32>>, Vec<f32>) {
        let squares = size * size;
        let planes = input.len() / (n * squares).max(1);
        let grid = (size + 2) * (size + 2);
        let trunk = self.stem.cout_padded;
        let widest = [&self.stem, &self.policy_features, &self.value_features]
            .iter()
            .map(|c| c.cout_padded.max(c.cin))
            .max()
            .unwrap_or(LANES)
            .max(trunk);
        let mut bytes_in = vec![0u8; grid * self.stem.cin];
        let mut bytes = vec![0u8; grid * widest];
        let (mut h, mut t) = (vec![0f32; squares * trunk], vec![0f32; squares * widest]);
        let (mut logits, mut values) = (Vec::with_capacity(n), vec![0f32; n]);
        for k in 0..n {
            let x = &input[k * planes * squares..(k + 1) * planes * squares];
            for sq in 0..squares {
                let cell = ((sq / size + 1) * (size + 2) + sq % size + 1) * self.stem.cin;
                for (p, byte) in bytes_in[cell..cell + planes].iter_mut().enumerate() {
                    *byte = to_byte(x[p * squares + sq] * (1.0 / INPUT_SCALE));
                }
            }
            self.stem.run(&bytes_in, size, &mut h, self.kernel);
            relu(&mut h);
            let shape = (size, trunk, self.stem.cout);
            quantize(&h, shape, 1.0 / self.trunk_scales[0], &mut bytes, trunk);
            for (i, (a, b)) in self.blocks.iter().enumerate() {
                // no ReLU first: quantising sends what is below 0 to 0
                a.run(&bytes, size, &mut t, self.kernel);
                quantize(
                    &t,
                    shape,
                    1.0 / self.trunk_scales[2 * i + 1],
                    &mut bytes,
                    trunk,
                );
                b.run(&bytes, size, &mut t, self.kernel);
                for (hv, tv) in h.iter_mut().zip(&t) {
                    *hv = (*hv + tv).max(0.0);
                }
                quantize(
                    &h,
                    shape,
                    1.0 / self.trunk_scales[2 * i + 2],
                    &mut bytes,
                    trunk,
                );
            }
            logits.push(self.policy(&bytes, size, &mut t, wanted[k]));
            values[k] = self.value(&bytes, size, &mut t);
        }
        (logits, values)
    }

    /// The policy logits at the indices `wanted` from the trunk's bytes: a 1x1 convolution to
    /// features, then per square and move channel a dot product of that square's features,
    /// and two logits of the pooled features.
    #[inline(always)]
    fn policy(&self, trunk: &[u8], size: usize, pf: &mut [f32], wanted: &[usize]) -> Vec<f32> {
        let squares = size * size;
        let (c, stride) = (self.policy_features.cout, self.policy_features.cout_padded);
        self.policy_features.run(trunk, size, pf, self.kernel);
        relu(&mut pf[..squares * stride]);
        let on_squares = POLICY_CHANNELS * squares;
        let global = wanted.iter().any(|&i| i >= on_squares).then(|| {
            self.policy_global
                .apply(&pooled(&pf[..squares * stride], stride, c))
        });
        wanted
            .iter()
            .map(|&i| match &global {
                Some(g) if i >= on_squares => g[i - on_squares],
                _ => {
                    let (channel, square) = (i / squares, i % squares);
                    let w = &self.policy_squares.weights[channel * c..(channel + 1) * c];
                    let features = &pf[square * stride..square * stride + c];
                    let dot: f32 = w.iter().zip(features).map(|(a, b)| a * b).sum();
                    self.policy_squares.bias[channel] + dot
                }
            })
            .collect()
    }

    #[inline(always)]
    fn value(&self, trunk: &[u8], size: usize, vf: &mut [f32]) -> f32 {
        let squares = size * size;
        let (c, stride) = (self.value_features.cout, self.value_features.cout_padded);
        self.value_features.run(trunk, size, vf, self.kernel);
        relu(&mut vf[..squares * stride]);
        let mut hidden = self
            .value_hidden
            .apply(&pooled(&vf[..squares * stride], stride, c));
        relu(&mut hidden);
        self.value_out.apply(&hidden)[0].tanh()
    }
}

/// The mean over the squares of each of the first `channels` channels.
#[inline(always)]
fn pooled(values: &[f32], stride: usize, channels: usize) -> Vec<f32> {
    let squares = values.len() / stride;
    let mut sums = vec![0f32; channels];
    for square in values.chunks(stride) {
        for (s, v) in sums.iter_mut().zip(square) {
            *s += v;
        }
    }
    sums.iter().map(|s| s / squares as f32).collect()
}

/// Positions to calibrate the activations' scales on: `count` positions of uniformly random
/// games of `variant` from its start (seeded, so a network's int8 form is always the same),
/// encoded under `encoding`, plane-major, one after another.
pub fn calibration_planes(variant: &Arc<Variant>, encoding: Encoding, count: usize) -> Vec<f32> {
    let mut rng = ChaCha8Rng::seed_from_u64(0x1A78);
    let start = Position::start(variant);
    let mut position = start.clone();
    let mut planes = Vec::with_capacity(count * encoding.planes() * variant.squares);
    let mut moves = Vec::new();
    for _ in 0..count {
        if position.needs_roll() {
            position.set_roll(rng.random_range(1..=6));
        }
        planes.extend(encoding.encode(&position));
        moves.clear();
        position.legal_moves(&mut moves);
        match moves.choose(&mut rng) {
            Some(&mv) if position.outcome().is_none() => {
                position.play_recorded(mv);
            }
            _ => position = start.clone(),
        }
    }
    planes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::folded::FoldedNet;
    use crate::nn::Network;
    use tch::{Kind, Tensor};

    /// The int8 form of a shipped network and the f32 form it came from, on `count` positions of
    /// random games (other than the calibration's), with their planes.
    fn forms(variant: &str, count: usize) -> (Int8Net, FoldedNet, Vec<f32>, usize) {
        let path = format!("models/{variant}.safetensors");
        let net = Network::load(path.as_ref(), None, tch::Device::Cpu).expect("shipped");
        let v = Variant::load(variant).expect("preset");
        let f32 = FoldedNet::of(&net.net, false);
        let size = v.size as i64;
        let calibration = calibration_planes(&v, net.encoding(), 256);
        let x = Tensor::from_slice(&calibration).view([256, -1, size, size]);
        let int8 = Int8Net::new(f32.float_layers(), &f32.activation_maxima(&x));
        // later positions of the same walk: not those calibrated on
        let all = calibration_planes(&v, net.encoding(), 256 + count);
        let planes = all[calibration.len()..].to_vec();
        (int8, f32, planes, v.size)
    }

    /// Every policy index of each of `n` positions.
    fn every_logit(n: usize, size: usize) -> Vec<&'static [usize]> {
        let all: Vec<usize> = (0..POLICY_CHANNELS * size * size + 2).collect();
        vec![Vec::leak(all); n]
    }

    #[test]
    fn every_kernel_this_cpu_runs_and_the_plain_sums_agree_bit_for_bit() {
        // Copenhagen's 11x11 leaves squares past the last group of eight; tavlei's 9x9 too
        for variant in ["tavlei", "copenhagen"] {
            let (int8, _, planes, size) = forms(variant, 24);
            let every = every_logit(24, size);
            let plain = int8
                .clone()
                .with_kernel(Kernel::Plain)
                .forward(&planes, 24, size, &every);
            for kernel in [Kernel::Vnni, Kernel::Avx2]
                .into_iter()
                .filter(|k| k.available())
            {
                let fast = int8
                    .clone()
                    .with_kernel(kernel)
                    .forward(&planes, 24, size, &every);
                assert_eq!(fast, plain, "{variant}: {kernel:?}");
            }
        }
    }

    #[test]
    fn the_int8_network_agrees_with_f32_to_quantisation() {
        for variant in ["brandubh", "tablut", "tavlei", "copenhagen"] {
            let n = 64;
            let (int8, f32, planes, size) = forms(variant, n);
            let (p1, v1) = int8.forward(&planes, n, size, &every_logit(n, size));
            let p1: Vec<f32> = p1.concat();
            let x = Tensor::from_slice(&planes).view([n as i64, -1, size as i64, size as i64]);
            let (p0, v0) = f32.forward(&x);
            let priors = |t: Tensor| t.view([n as i64, -1]).softmax(1, Kind::Float);
            let (a, b) = (priors(p0), priors(Tensor::from_slice(&p1)));
            let dp = (&a - &b).abs().max().double_value(&[]);
            let top = a
                .argmax(1, false)
                .eq_tensor(&b.argmax(1, false))
                .to_kind(Kind::Float);
            let agree = top.mean(Kind::Float).double_value(&[]);
            let v0 = Vec::<f32>::try_from(v0).expect("values");
            let dv = v0
                .iter()
                .zip(&v1)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            eprintln!("{variant}: priors {dp:.4} values {dv:.4} top-1 agreement {agree:.3}");
            assert!(
                dp < 0.05 && dv < 0.05 && agree > 0.9,
                "{variant}: {dp} {dv} {agree}"
            );
            assert!(dv > 0.0, "{variant}: int8 gave f32's values");
        }
    }
}
