"""Can the CUDA driver API name the GPU without importing torch?  (For a warm run on a CUDA
machine, which now imports torch for ~3 s only to resolve ``encoder.device=auto`` and to name the
GPU in the cache key: README "GPU".)  Not yet run on a GPU.

    python3 bench/gpu_driver_probe.py        # prints and writes $OUT/probe.json (or /tmp/probe.json)

Reports libcuda's device count and names (cuInit, cuDeviceGetCount, cuDeviceGetName through
ctypes) and their time, the count under CUDA_VISIBLE_DEVICES "", "0" and "1", torch's import time
and ``torch.cuda.get_device_name(0)``, and whether the two names are the same string (a probe
that named the GPU differently would make every warm run miss the cache).
"""
import ctypes
import json
import os
import subprocess
import sys
import time

out = {}
t = time.perf_counter()
try:
    cuda = ctypes.CDLL("libcuda.so.1")
    rc_init = cuda.cuInit(0)
    n = ctypes.c_int()
    rc_count = cuda.cuDeviceGetCount(ctypes.byref(n))
    names = []
    for i in range(n.value):
        dev = ctypes.c_int()
        cuda.cuDeviceGet(ctypes.byref(dev), i)
        buf = ctypes.create_string_buffer(256)
        cuda.cuDeviceGetName(buf, 256, dev)
        names.append(buf.value.decode())
    out["driver"] = {"init": rc_init, "count_rc": rc_count, "count": n.value, "names": names,
                     "seconds": time.perf_counter() - t}
except Exception as exc:  # noqa: BLE001
    out["driver_error"] = repr(exc)
# the same with CUDA_VISIBLE_DEVICES="" in a fresh process
code = ("import ctypes;c=ctypes.CDLL('libcuda.so.1');r=c.cuInit(0);n=ctypes.c_int();"
        "r2=c.cuDeviceGetCount(ctypes.byref(n));print(r,r2,n.value)")
for vis in ("", "0", "1"):
    p = subprocess.run([sys.executable, "-c", code], env={**os.environ, "CUDA_VISIBLE_DEVICES": vis},
                       capture_output=True, text=True)
    out[f"visible={vis!r}"] = (p.stdout.strip(), p.stderr.strip()[-200:])
t = time.perf_counter()
import torch  # noqa: E402
out["torch_import_s"] = time.perf_counter() - t
t = time.perf_counter()
available = torch.cuda.is_available()
out["torch"] = {"available": available, "name": torch.cuda.get_device_name(0) if available else None,
                "seconds": time.perf_counter() - t}
names = out.get("driver", {}).get("names") or [None]
out["same_name"] = names[0] is not None and names[0] == out["torch"]["name"]
print(json.dumps(out, indent=1))
json.dump(out, open(os.path.join(os.environ.get("OUT", "/tmp"), "probe.json"), "w"), indent=1)
