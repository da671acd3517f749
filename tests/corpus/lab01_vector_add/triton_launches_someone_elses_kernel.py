# impl: triton
# status: fallback
# reason: no Triton kernel was launched (it ran borrowed_kernel, which your cells do not define)
# (a cheat: launch a kernel someone else wrote, here one smuggled in encoded and loaded from a
#  file at run time; only kernels whose source is in the student's cells count)

# %% edit vector_add_triton
# <<<
# @triton.jit
# ===
# import base64
# import importlib.util
# import pathlib
# import tempfile
#
# BORROWED = (
#     "aW1wb3J0IHRyaXRvbgppbXBvcnQgdHJpdG9uLmxhbmd1YWdlIGFzIHRsCgoKQHRyaXRvbi5qaXQKZGVmIGJvcnJv"
#     "d2VkX2tlcm5lbCh4X3B0ciwgeV9wdHIsIG91dF9wdHIsIG5fZWxlbWVudHMsIEJMT0NLX1NJWkU6IHRsLmNvbnN0"
#     "ZXhwcik6CiAgICBvZmZzID0gdGwucHJvZ3JhbV9pZChheGlzPTApICogQkxPQ0tfU0laRSArIHRsLmFyYW5nZSgw"
#     "LCBCTE9DS19TSVpFKQogICAgbWFzayA9IG9mZnMgPCBuX2VsZW1lbnRzCiAgICB4ID0gdGwubG9hZCh4X3B0ciAr"
#     "IG9mZnMsIG1hc2s9bWFzaykudG8odGwuZmxvYXQzMikKICAgIHkgPSB0bC5sb2FkKHlfcHRyICsgb2ZmcywgbWFz"
#     "az1tYXNrKS50byh0bC5mbG9hdDMyKQogICAgdGwuc3RvcmUob3V0X3B0ciArIG9mZnMsICh4ICsgeSkudG8ob3V0"
#     "X3B0ci5kdHlwZS5lbGVtZW50X3R5KSwgbWFzaz1tYXNrKQo="
# )
# _file = pathlib.Path(tempfile.mkdtemp()) / "borrowed.py"
# _file.write_bytes(base64.b64decode(BORROWED))
# _spec = importlib.util.spec_from_file_location("borrowed", _file)
# _borrowed = importlib.util.module_from_spec(_spec)
# _spec.loader.exec_module(_borrowed)
#
#
# @triton.jit
# >>>
# <<<
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     _borrowed.borrowed_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# >>>
