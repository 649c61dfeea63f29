//! Which Burn backend runs the model: chosen at run time, in one place.

use std::fmt;
use std::str::FromStr;

use burn::prelude::Device;

/// A compute backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Backend {
    /// burn-flex: the default CPU backend (fastest on CPU in Burn 0.22).
    #[default]
    Flex,
    /// burn-ndarray: the older CPU backend, kept selectable (much slower).
    Ndarray,
    /// burn-wgpu: GPU through Vulkan/Metal/DX12; needs the `wgpu` cargo feature.
    Wgpu,
}

impl Backend {
    /// The device for this backend, or why it is unavailable in this build.
    pub fn device(self) -> Result<Device, String> {
        match self {
            Backend::Flex => Ok(Device::flex()),
            #[allow(deprecated)] // burn-ndarray is deprecated upstream; users asked for it
            Backend::Ndarray => Ok(Device::ndarray()),
            Backend::Wgpu => wgpu_device(),
        }
    }
}

#[cfg(feature = "wgpu")]
fn wgpu_device() -> Result<Device, String> {
    Ok(Device::wgpu(burn::tensor::DeviceKind::DefaultDevice))
}

#[cfg(not(feature = "wgpu"))]
fn wgpu_device() -> Result<Device, String> {
    Err("this build has no GPU backend: rebuild with `--features wgpu`".into())
}

impl FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "flex" | "cpu" => Ok(Backend::Flex),
            "ndarray" => Ok(Backend::Ndarray),
            "wgpu" | "gpu" => Ok(Backend::Wgpu),
            other => Err(format!("unknown backend `{other}` (flex, ndarray, wgpu)")),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Flex => "flex",
            Backend::Ndarray => "ndarray",
            Backend::Wgpu => "wgpu",
        })
    }
}
