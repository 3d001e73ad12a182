"""Ask the Vulkan loader for a device before kp does: kp aborts the process when there is none.

``vulkan_problem()`` calls ``vkCreateInstance`` and ``vkEnumeratePhysicalDevices`` through
ctypes and returns the loader's answer in its own terms (``VK_ERROR_INCOMPATIBLE_DRIVER``...),
or ``None`` when a device is there.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

VK_RESULTS = {
    -1: "VK_ERROR_OUT_OF_HOST_MEMORY", -2: "VK_ERROR_OUT_OF_DEVICE_MEMORY",
    -3: "VK_ERROR_INITIALIZATION_FAILED", -6: "VK_ERROR_LAYER_NOT_PRESENT",
    -7: "VK_ERROR_EXTENSION_NOT_PRESENT", -9: "VK_ERROR_INCOMPATIBLE_DRIVER",
}
DRIVER_VARIABLES = ("VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES")


class _InstanceCreateInfo(ctypes.Structure):
    _fields_ = [
        ("sType", ctypes.c_int32), ("pNext", ctypes.c_void_p), ("flags", ctypes.c_uint32),
        ("pApplicationInfo", ctypes.c_void_p), ("enabledLayerCount", ctypes.c_uint32),
        ("ppEnabledLayerNames", ctypes.c_void_p), ("enabledExtensionCount", ctypes.c_uint32),
        ("ppEnabledExtensionNames", ctypes.c_void_p),
    ]


def _where() -> str:
    set_vars = [f"{v}={os.environ[v]}" for v in DRIVER_VARIABLES if v in os.environ]
    return f" ({', '.join(set_vars)})" if set_vars else ""


def vulkan_problem() -> str | None:
    """Why no Vulkan device can be opened here, or None if one can."""
    name = ctypes.util.find_library("vulkan") or "libvulkan.so.1"
    try:
        lib = ctypes.CDLL(name)
    except OSError as exc:
        return f"no Vulkan loader: {exc}"
    info = _InstanceCreateInfo(sType=1)  # VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
    instance = ctypes.c_void_p()
    result = lib.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(instance))
    if result != 0:
        return (f"no Vulkan device: vkCreateInstance returned "
                f"{VK_RESULTS.get(result, result)} (the loader found no usable driver){_where()}")
    try:
        count = ctypes.c_uint32(0)
        result = lib.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), None)
        if result != 0:
            return f"no Vulkan device: vkEnumeratePhysicalDevices returned {VK_RESULTS.get(result, result)}{_where()}"
        if count.value == 0:
            return f"no Vulkan device: vkEnumeratePhysicalDevices found none{_where()}"
    finally:
        lib.vkDestroyInstance(instance, None)
    return None
