/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Internal interface between the raw decoder registry and the decoders. */
#ifndef PM_RAW_INT_H
#define PM_RAW_INT_H

#include <profileme/raw.h>

#include "internal/pm_internal.h"

/* Upper bound on the field count of any decoder (checked by the tests). */
#define PM__RAW_MAXF 96

/* One entry of a decoder's field table. */
struct pm__raw_field {
	const char *name;  /* C / JSON / Python name */
	const char *label; /* registers: the display name for text ("PMPC") */
	uint8_t kind;      /* enum pm_raw_kind */
	uint8_t flags;     /* enum pm_raw_field_flag */
};

/* What decoding needs from a pm_raw_ctx (defaults when there is none). */
struct pm__raw_opts {
	bool big_endian;  /* byte order of the recording (IBS payloads) */
	bool zen4;        /* ibs_op cap zen4_ibs_extensions */
	bool ldlat;       /* ibs_op cap ldlat */
	bool strmst;      /* ibs_op cap strmst */
	bool rmtsocket;   /* ibs_op cap rmtsocket */
	bool fam19_early; /* AMD family 0x19, model < 0x10: errata 1238/1293/1347 */
};

/* Where a decoder writes: v[i] and present[i] for field i. */
struct pm__raw_out {
	uint64_t v[PM__RAW_MAXF];
	uint8_t present[PM__RAW_MAXF];
	const uint8_t *bytes; /* the one BYTES field's data, if any */
};

struct pm_raw_decoder {
	const char *name;
	const char *key;
	const struct pm__raw_field *fields;
	size_t nfields;
	/* Fill out (zeroed by the caller); 0 or -PM_ERR_* with pm__err(). */
	int (*decode)(const struct pm__raw_opts *o, const uint8_t *p, size_t len, struct pm__raw_out *out);
	/* Name of a CODE field's code, or NULL. */
	const char *(*code_name)(const struct pm__raw_opts *o, size_t field, uint64_t code);
};

PM_HIDDEN extern const struct pm_raw_decoder pm__raw_alpha_profileme;
PM_HIDDEN extern const struct pm_raw_decoder pm__raw_ibs_fetch;
PM_HIDDEN extern const struct pm_raw_decoder pm__raw_ibs_op;

/* Bits hi..lo of v. */
static inline uint64_t pm__bits(uint64_t v, unsigned hi, unsigned lo)
{
	unsigned w = hi - lo + 1;
	return (v >> lo) & (w >= 64 ? ~0ULL : ((1ULL << w) - 1));
}

#endif /* PM_RAW_INT_H */
