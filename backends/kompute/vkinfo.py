"""What kp does not report of the Vulkan device: its driver and the float controls it offers.

kompute's ``get_device_properties`` gives the device name only. Whether a driver preserves or
flushes denormals, and which rounding modes a shader may select, decide a shader's bits, so the
fingerprint (SPEC §8) needs them. They are read here straight from the Vulkan loader with ctypes:
``vkGetPhysicalDeviceProperties2`` with ``VkPhysicalDeviceDriverProperties`` and
``VkPhysicalDeviceFloatControlsProperties`` chained (core since Vulkan 1.2), for physical device
0, the device ``kp.Manager()`` opens.
"""

from __future__ import annotations

import ctypes
import re

_API_1_2 = (1 << 22) | (2 << 12)
_STYPE_APP_INFO = 0
_STYPE_INSTANCE = 1
_STYPE_PROPERTIES_2 = 1000059001
_STYPE_DRIVER = 1000196000
_STYPE_FLOAT_CONTROLS = 1000197000
_NVIDIA_PROPRIETARY = 4


class _AppInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_uint32), ("pNext", ctypes.c_void_p),
                ("pApplicationName", ctypes.c_char_p), ("applicationVersion", ctypes.c_uint32),
                ("pEngineName", ctypes.c_char_p), ("engineVersion", ctypes.c_uint32),
                ("apiVersion", ctypes.c_uint32)]


class _InstanceInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_uint32), ("pNext", ctypes.c_void_p), ("flags", ctypes.c_uint32),
                ("pApplicationInfo", ctypes.POINTER(_AppInfo)),
                ("enabledLayerCount", ctypes.c_uint32), ("ppEnabledLayerNames", ctypes.c_void_p),
                ("enabledExtensionCount", ctypes.c_uint32),
                ("ppEnabledExtensionNames", ctypes.c_void_p)]


class _Driver(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_uint32), ("pNext", ctypes.c_void_p), ("driverID", ctypes.c_uint32),
                ("driverName", ctypes.c_char * 256), ("driverInfo", ctypes.c_char * 256),
                ("conformanceVersion", ctypes.c_uint8 * 4)]


_WIDTHS = ("16", "32", "64")


class _FloatControls(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_uint32), ("pNext", ctypes.c_void_p),
                ("denormBehaviorIndependence", ctypes.c_uint32),
                ("roundingModeIndependence", ctypes.c_uint32),
                *[(f"{what}{w}", ctypes.c_uint32)
                  for what in ("signedZeroInfNanPreserve", "denormPreserve", "denormFlushToZero",
                               "roundingModeRTE", "roundingModeRTZ") for w in _WIDTHS]]


class _Properties2(ctypes.Structure):
    # VkPhysicalDeviceProperties' head; its limits and sparse properties (824 bytes in all)
    # land in the tail, which is larger than the driver writes.
    _fields_ = [("sType", ctypes.c_uint32), ("pNext", ctypes.c_void_p),
                ("apiVersion", ctypes.c_uint32), ("driverVersion", ctypes.c_uint32),
                ("vendorID", ctypes.c_uint32), ("deviceID", ctypes.c_uint32),
                ("deviceType", ctypes.c_uint32), ("deviceName", ctypes.c_char * 256),
                ("pipelineCacheUUID", ctypes.c_uint8 * 16), ("tail", ctypes.c_uint8 * 2048)]


def device_facts() -> dict[str, str]:
    """The fingerprint keys of physical device 0 (``judge.fingerprint.KEYS``); raises OSError
    or RuntimeError saying what failed."""
    lib = ctypes.CDLL("libvulkan.so.1")
    app = _AppInfo(_STYPE_APP_INFO, None, b"judge-fingerprint", 1, b"judge", 1, _API_1_2)
    info = _InstanceInfo(_STYPE_INSTANCE, None, 0, ctypes.pointer(app), 0, None, 0, None)
    instance = ctypes.c_void_p()
    _check(lib.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(instance)), "vkCreateInstance")
    lib.vkDestroyInstance.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    try:
        return _read(lib, instance)
    finally:
        lib.vkDestroyInstance(instance, None)


def _read(lib, instance) -> dict[str, str]:
    lib.vkEnumeratePhysicalDevices.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32),
                                               ctypes.c_void_p]
    count = ctypes.c_uint32(0)
    _check(lib.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), None), "enumerate devices")
    if count.value == 0:
        raise RuntimeError("no Vulkan physical device")
    devices = (ctypes.c_void_p * count.value)()
    _check(lib.vkEnumeratePhysicalDevices(instance, ctypes.byref(count), devices), "enumerate devices")
    controls = _FloatControls(_STYPE_FLOAT_CONTROLS, None)
    driver = _Driver(_STYPE_DRIVER, ctypes.cast(ctypes.pointer(controls), ctypes.c_void_p))
    props = _Properties2(_STYPE_PROPERTIES_2, ctypes.cast(ctypes.pointer(driver), ctypes.c_void_p))
    lib.vkGetPhysicalDeviceProperties2.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.vkGetPhysicalDeviceProperties2(devices[0], ctypes.byref(props))
    api = props.apiVersion
    facts = {
        "vulkan_device": props.deviceName.decode(errors="replace"),
        "vulkan_api": f"{(api >> 22) & 0x7F}.{(api >> 12) & 0x3FF}.{api & 0xFFF}",
        "vulkan_driver": driver.driverName.decode(errors="replace") or "unknown",
        "vulkan_driver_version": _driver_version(driver, props.driverVersion),
    }
    for w in _WIDTHS:
        facts[f"denorm_f{w}"] = _either(getattr(controls, f"denormPreserve{w}"), "preserve",
                                        getattr(controls, f"denormFlushToZero{w}"), "flush")
        facts[f"rounding_f{w}"] = _either(getattr(controls, f"roundingModeRTE{w}"), "rte",
                                          getattr(controls, f"roundingModeRTZ{w}"), "rtz")
    return facts


def _either(a: int, a_name: str, b: int, b_name: str) -> str:
    """What a shader may request: one mode, both (``both``) or neither (``none``)."""
    return {(1, 1): "both", (1, 0): a_name, (0, 1): b_name}.get((bool(a), bool(b)), "none")


def _driver_version(driver: _Driver, packed: int) -> str:
    """The driver's own version: the first dotted number of driverInfo ("Mesa 22.3.6 (LLVM
    15.0.6)", "570.86.15"), else the packed driverVersion decoded as its vendor packs it."""
    found = re.search(r"\d+(\.\d+)+", driver.driverInfo.decode(errors="replace"))
    if found:
        return found.group(0)
    if driver.driverID == _NVIDIA_PROPRIETARY:
        return f"{packed >> 22}.{(packed >> 14) & 0xFF}.{(packed >> 6) & 0xFF}"
    return f"{packed >> 22}.{(packed >> 12) & 0x3FF}.{packed & 0xFFF}"


def _check(result: int, what: str) -> None:
    if result != 0:
        raise RuntimeError(f"{what} failed with VkResult {result}")
