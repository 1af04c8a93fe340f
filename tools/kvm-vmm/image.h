/* SPDX-License-Identifier: MIT */
/* The guest image, built from guest/ and embedded by guest/embed.py. */
#ifndef KVMVMM_IMAGE_H
#define KVMVMM_IMAGE_H

#include <stddef.h>

/** Bytes to copy to KVMVMM_IMAGE_GPA; starts with the image header. */
extern const unsigned char kvmvmm_guest_image[];
extern const size_t kvmvmm_guest_image_size;

#endif
