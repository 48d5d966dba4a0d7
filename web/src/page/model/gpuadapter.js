// Whether the local model should go on the GPU: a WebGPU adapter on real hardware, not one the
// browser emulates in software. DOM-free, so tests/site/test_gpu_adapter.py runs it in Node.js.

/** Whether this browser gives the page a WebGPU adapter on real hardware (wllama's worker asks for
 * its own). A software adapter (SwiftShader, llvmpipe: a GPU emulated on the CPU) is slower than the
 * CPU path, and on SwiftShader the model's replies came out wrong (bench/local_model.py --webgpu),
 * so it is passed over unless `anyAdapter` (the address's `?gpu=any`, visit.js, for that bench). */
export async function hasWebGPU(anyAdapter = false) {
  try {
    const adapter = self.navigator && navigator.gpu && (await navigator.gpu.requestAdapter());
    if (!adapter) return false;
    return anyAdapter || !isSoftwareAdapter(adapter);
  } catch {
    return false;
  }
}

/** Whether a WebGPU adapter is a GPU emulated in software (the browser's fallback adapter). */
export function isSoftwareAdapter(adapter) {
  const info = adapter.info || {};
  if (info.isFallbackAdapter || adapter.isFallbackAdapter) return true;
  const words = [info.vendor, info.architecture, info.device, info.description].join(" ");
  return /\b(swiftshader|llvmpipe|lavapipe|software|warp)\b/i.test(words);
}
