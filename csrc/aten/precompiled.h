// The torch headers nearly every glue translation unit includes, compiled
// once into a precompiled header (CMake's target_precompile_headers) instead
// of parsed again by each of ~90 units (~6 s each on a 2-core machine).
// Only stable, heavy torch headers belong here: a change to this file
// rebuilds all of _C.
#pragma once

#include <ATen/ATen.h>
#include <ATen/DeviceGuard.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/op_registration/adaption.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/Resize.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>
