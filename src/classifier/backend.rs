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
    use std::sync::{Mutex, OnceLock};
    // cubecl takes the GPU adapter on first use and, when there is none, panics in its
    // device thread and then in ours: try it once here, quietly, and say what is missing.
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    let device = Device::wgpu(burn::tensor::DeviceKind::DefaultDevice);
    let probe = PROBE.get_or_init(|| {
        static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            if let (Ok(mut m), Some(text)) = (MESSAGES.lock(), info.payload_as_str()) {
                m.push(text.to_string());
            }
        }));
        let first_use = device.clone();
        let result = std::panic::catch_unwind(move || {
            burn::tensor::Tensor::<1>::zeros([1], &first_use).into_data();
        });
        std::panic::set_hook(hook);
        result.map_err(|_| {
            let why = MESSAGES
                .lock()
                .ok()
                .and_then(|m| m.first().cloned())
                .unwrap_or_else(|| "the GPU could not be started".into());
            format!(
                "no usable GPU for --backend wgpu ({why}); it needs a Vulkan, Metal or DX12 \
                 driver (on Linux: the Vulkan loader libvulkan1 and the GPU vendor's ICD)"
            )
        })
    });
    probe.clone().map(|()| device)
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
