//! Generation 0: a fresh network, or the trained one `start_from` names.

use std::path::Path;

use crate::nn::grow::grow;
use crate::nn::Network;
use crate::pipeline::config::PipelineConfig;
use crate::pipeline::error::PipelineError;
use crate::pipeline::files::model_path;

/// The checkpoint `start_from` names, checked to be one the run's settings could have made; a
/// smaller network (fewer blocks or channels, neither more) is grown into the config's
/// `[network]` computing the same function (`nn::grow`, which refuses a larger one), so a run
/// continues at a larger size.
fn starting_network(
    cfg: &PipelineConfig,
    path: &Path,
    variant: &str,
    device: tch::Device,
) -> Result<Network, PipelineError> {
    let net = Network::load(path, Some(variant), device)?;
    let meta = &net.meta;
    let refuse = |message: String| PipelineError::StartFrom {
        path: path.to_path_buf(),
        message,
    };
    if meta.encoding_version != cfg.encoding {
        return Err(refuse(format!(
            "its input encoding is {}, the config's {}",
            meta.encoding_version, cfg.encoding
        )));
    }
    if meta.architecture == cfg.network {
        return Ok(net);
    }
    let from = meta.architecture;
    // a larger network is refused by `grow`, which names both sizes
    let grown = grow(&net, cfg.network, cfg.seed).map_err(|e| refuse(e.to_string()))?;
    tracing::info!(
        "start_from {}: grown from {from} into {}",
        path.display(),
        cfg.network
    );
    Ok(grown)
}

/// Generation 0's network saved in `run`, unless it is there: a fresh one for `variant`, or the
/// trained one the run continues.
pub(crate) fn first_network(
    cfg: &PipelineConfig,
    run: &Path,
    variant: &str,
    device: tch::Device,
) -> Result<(), PipelineError> {
    let first = model_path(run, 0);
    if !crate::nn::checkpoint::sidecar_path(&first).exists() {
        let mut net = match &cfg.start_from {
            Some(path) => starting_network(cfg, path, variant, device)?,
            None => {
                let encoding = crate::encode::Encoding::from_version(cfg.encoding)
                    .unwrap_or(crate::encode::Encoding::CURRENT);
                Network::with_encoding(variant, cfg.network, encoding, device, cfg.seed)
            }
        };
        net.meta.generation = 0;
        net.save(&first)?;
    }
    Ok(())
}
