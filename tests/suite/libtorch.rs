//! Proves the libtorch path on every run: a tiny convolutional network trains a few Adam steps
//! on fixed data and its loss falls.

use tch::nn::{self, Module, OptimizerConfig};
use tch::{Device, Kind, Tensor};

#[test]
fn tiny_conv_net_learns_fixed_data() {
    tch::manual_seed(7);
    let vs = nn::VarStore::new(Device::Cpu);
    let root = vs.root();
    let net = nn::seq()
        .add(nn::conv2d(
            &root / "c1",
            4,
            8,
            3,
            nn::ConvConfig {
                padding: 1,
                ..Default::default()
            },
        ))
        .add_fn(|x| x.relu())
        .add(nn::conv2d(
            &root / "c2",
            8,
            1,
            3,
            nn::ConvConfig {
                padding: 1,
                ..Default::default()
            },
        ))
        .add_fn(|x| x.mean_dim(&[1i64, 2, 3][..], false, Kind::Float));
    let inputs = Tensor::randn([32, 4, 7, 7], (Kind::Float, Device::Cpu));
    let targets = inputs
        .mean_dim(&[1i64, 2, 3][..], false, Kind::Float)
        .tanh();
    let mut opt = nn::Adam::default().build(&vs, 1e-2).expect("optimizer");
    let loss_of = |net: &nn::Sequential| {
        net.forward(&inputs)
            .mse_loss(&targets, tch::Reduction::Mean)
    };
    let first = loss_of(&net).double_value(&[]);
    for _ in 0..30 {
        opt.backward_step(&loss_of(&net));
    }
    let last = loss_of(&net).double_value(&[]);
    assert!(last < first * 0.5, "loss did not fall: {first} -> {last}");
}
