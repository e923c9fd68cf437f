/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Fuzz target: one raw payload decoder (PM_FUZZ_DECODER: "alpha_profileme",
 * "ibs_fetch" or "ibs_op"), through pm_raw_decode_row(), pm_raw_decode(),
 * pm_raw_format_json() and pm_raw_format_text() (and pm_profileme_decode(),
 * pm_profileme_attribute(), pm_ibs_attribute()).
 *
 * Input: byte 0 = context flags (bit 0: big-endian recording; bit 1: CPUID
 * of an AMD family 0x19 model 0x01 (errata); bit 2: zen4_ibs_extensions;
 * bit 3: ldlat/strmst/rmtsocket caps; bit 4: Alpha arch), then the payload.
 */
#include <profileme/raw.h>

#include "fuzz_common.h"

#ifndef PM_FUZZ_DECODER
#error "define PM_FUZZ_DECODER"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned flags = data[0];
	size_t len = size - 1;
	uint8_t *payload = malloc(len ? len : 1);
	if (!payload)
		abort();
	if (len)
		memcpy(payload, data + 1, len);

	const pm_raw_decoder *d = pm_raw_decoder_find(PM_FUZZ_DECODER);
	PM_FUZZ_ASSERT(d != NULL);
	pm_raw_ctx *ctx = NULL;
	PM_FUZZ_ASSERT(pm_raw_ctx_new(&ctx) == 0);
	PM_FUZZ_ASSERT(pm_raw_ctx_set_big_endian(ctx, flags & 1) == 0);
	if (flags & 2)
		PM_FUZZ_ASSERT(pm_raw_ctx_set_cpuid(ctx, "AuthenticAMD,25,1,1") == 0);
	if (flags & 4)
		PM_FUZZ_ASSERT(pm_raw_ctx_set_pmu_cap(ctx, "ibs_op", "zen4_ibs_extensions", "1") == 0);
	if (flags & 8) {
		PM_FUZZ_ASSERT(pm_raw_ctx_set_pmu_cap(ctx, "ibs_op", "ldlat", "1") == 0);
		PM_FUZZ_ASSERT(pm_raw_ctx_set_pmu_cap(ctx, "ibs_op", "strmst", "1") == 0);
		PM_FUZZ_ASSERT(pm_raw_ctx_set_pmu_cap(ctx, "ibs_op", "rmtsocket", "1") == 0);
	}
	PM_FUZZ_ASSERT(pm_raw_ctx_set_arch(ctx, (flags & 16) ? "alpha" : "x86_64") == 0);

	size_t nf = pm_raw_field_count(d);
	uint64_t vals[256];
	uint8_t present[256];
	PM_FUZZ_ASSERT(nf <= 256);
	int rc = pm_raw_decode_row(d, ctx, payload, len, vals, present, 256);
	PM_FUZZ_ASSERT(rc < 0 || (size_t)rc == nf);

	struct pm_raw_value rv[256];
	memset(rv, 0, sizeof(rv));
	rv[0].sz = sizeof(rv[0]);
	int rc2 = pm_raw_decode(d, ctx, payload, len, rv, 256);
	PM_FUZZ_ASSERT(rc2 == rc);
	if (rc >= 0) {
		for (size_t i = 0; i < nf; i++) {
			PM_FUZZ_ASSERT(rv[i].present == present[i]);
			PM_FUZZ_ASSERT(!present[i] || rv[i].u == vals[i]);
			if (rv[i].present && rv[i].bytes) {
				PM_FUZZ_ASSERT(rv[i].bytes >= payload && rv[i].bytes + rv[i].u <= payload + len);
			}
			if (rv[i].present && rv[i].kind == PM_RAW_KIND_CODE)
				(void)pm_raw_field_code_name(d, ctx, i, rv[i].u);
		}
	}

	/* Formatting: the full text, and the same text cut short. */
	char big[16384], small[24];
	int jl = pm_raw_format_json(d, ctx, payload, len, big, sizeof(big));
	int js = pm_raw_format_json(d, ctx, payload, len, small, sizeof(small));
	PM_FUZZ_ASSERT(jl == js);
	PM_FUZZ_ASSERT((jl < 0) == (rc < 0));
	if (jl >= 0 && (size_t)jl < sizeof(big)) {
		PM_FUZZ_ASSERT(strlen(big) == (size_t)jl);
		PM_FUZZ_ASSERT(big[0] == '{' && big[jl - 1] == '}');
		PM_FUZZ_ASSERT(strncmp(big, small, sizeof(small) - 1) == 0);
	}
	int tl = pm_raw_format_text(d, ctx, payload, len, "  ", big, sizeof(big));
	int ts = pm_raw_format_text(d, ctx, payload, len, "  ", small, sizeof(small));
	PM_FUZZ_ASSERT(tl == ts);
	if (tl >= 0 && (size_t)tl < sizeof(big)) {
		PM_FUZZ_ASSERT(strlen(big) == (size_t)tl);
		PM_FUZZ_ASSERT(strncmp(big, small, sizeof(small) - 1) == 0);
	}
	(void)pm_raw_format_text(d, ctx, payload, len, NULL, big, 0);

	if (strcmp(PM_FUZZ_DECODER, "alpha_profileme") == 0) {
		struct pm_profileme_sample s;
		memset(&s, 0, sizeof(s));
		s.sz = sizeof(s);
		if (pm_profileme_decode(payload, len, &s) == 0) {
			uint64_t pc, npc;
			(void)pm_profileme_ips(&s, s.pmpc, &pc, &npc);
			(void)pm_profileme_trap_name(s.trap);
			(void)pm_profileme_mode_name(s.mode);
			(void)pm_profileme_counts_name(s.pctr0_counts);
			{
				/* the attribution rule on the decoded sample: consistent with its fields */
				struct pm_profileme_attribution a = { .sz = sizeof(a) };
				uint64_t ip = len >= 8 ? s.pmpc ^ ((uint64_t)payload[len - 1] << 56) : s.pc;

				PM_FUZZ_ASSERT(pm_profileme_attribute(&s, ip, &a) == 0);
				PM_FUZZ_ASSERT(a.trap == s.trap && a.pc == s.pc && a.ip == ip);
				PM_FUZZ_ASSERT(pm_profileme_charge_name(a.charge) != NULL);
				PM_FUZZ_ASSERT(!a.skid_valid || (!s.pal && a.addr == s.pc));
				PM_FUZZ_ASSERT(a.skid_valid || a.skid == 0);
				PM_FUZZ_ASSERT((a.mode == PM_PROFILEME_MODE_PAL) ==
					       (a.charge == PM_PROFILEME_CHARGE_PALCODE));
				PM_FUZZ_ASSERT(a.addr == (a.charge == PM_PROFILEME_CHARGE_PC ||
							  a.charge == PM_PROFILEME_CHARGE_PALCODE ? s.pc : ip));
			}
			if (s.extra)
				PM_FUZZ_ASSERT(s.extra >= payload && s.extra + s.extra_len <= payload + len);
		}
	}
	if (strncmp(PM_FUZZ_DECODER, "ibs_", 4) == 0) {
		struct pm_ibs_attribution a = { .sz = sizeof(a) };
		int ar = pm_ibs_attribute(d, ctx, payload, len, 0x1234, &a);

		/* exactly when the payload decodes; exact only with a valid tagged address */
		PM_FUZZ_ASSERT((ar < 0) == (rc < 0));
		if (ar == 0) {
			PM_FUZZ_ASSERT(!a.exact || a.valid);
			PM_FUZZ_ASSERT(a.addr == (a.exact ? a.tagged : 0x1234));
			PM_FUZZ_ASSERT(a.ip_differs == (a.exact && a.tagged != 0x1234));
		}
	}
	pm_raw_ctx_free(ctx);
	free(payload);
	return 0;
}
