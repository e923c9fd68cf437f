/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Raw decoders.  Every expectation below is an input the test chose (field
 * values placed at the documented bit positions), never the decoder's own
 * output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <profileme/profileme.h>

#include "internal/pm_internal.h"
#include "raw/raw_int.h"
#include "pm_check.h"

/* ---- ProfileMe payload builder (little endian by definition) ---- */

struct pm_in {
	uint32_t version;
	uint64_t pmpc;
	/* I_STAT */
	uint64_t ovr, icm, trap_type, lso, trp, mis;
	/* PCTR_CTL */
	uint64_t tak, val, sl1, sl0, pctr1, killed, stalled, pctr0;
};

static uint64_t in_i_stat(const struct pm_in *in)
{
	return in->ovr << 30 | in->icm << 33 | in->trap_type << 34 | in->lso << 38 | in->trp << 39 |
	       in->mis << 40;
}

static uint64_t in_pctr_ctl(const struct pm_in *in)
{
	return in->tak | in->val << 1 | in->sl1 << 2 | in->sl0 << 4 | in->pctr1 << 6 | in->killed << 26 |
	       in->stalled << 27 | in->pctr0 << 28;
}

/* Write the payload at p (28 bytes + extra). */
static void put_payload(uint8_t *p, const struct pm_in *in)
{
	pm__st32(p, in->version, false);
	pm__st64(p + 4, in->pmpc, false);
	pm__st64(p + 12, in_i_stat(in), false);
	pm__st64(p + 20, in_pctr_ctl(in), false);
}

static struct pm_profileme_sample decode_ok(const struct pm_in *in)
{
	uint8_t buf[64];
	struct pm_profileme_sample s = { .sz = sizeof(s) };

	put_payload(buf + 4, in); /* 4 past an 8-byte boundary, as in a record */
	ck_assert_int_eq(pm_profileme_decode(buf + 4, 28, &s), 0);
	return s;
}

/* Field descriptors: name, max value, pointer to the input member. */
struct fdesc {
	const char *name;
	uint64_t max;
	size_t in_off;
	size_t out_off;
	int in_i_stat; /* 1: I_STAT field, 0: PCTR_CTL field */
};
#define FD(n, m, isreg) { #n, m, offsetof(struct pm_in, n), offsetof(struct pm_profileme_sample, n), isreg }
static const struct fdesc fdescs[] = {
	FD(ovr, 7, 1), FD(icm, 1, 1), FD(trap_type, 15, 1), FD(lso, 1, 1), FD(trp, 1, 1), FD(mis, 1, 1),
	FD(tak, 1, 0), FD(val, 1, 0), FD(sl1, 3, 0), FD(sl0, 1, 0), FD(pctr1, 0xfffff, 0),
	FD(killed, 1, 0), FD(stalled, 1, 0), FD(pctr0, 0xfffff, 0),
};

static uint64_t *in_field(struct pm_in *in, const struct fdesc *f)
{
	return (uint64_t *)((char *)in + f->in_off);
}

static uint32_t out_field(const struct pm_profileme_sample *s, const struct fdesc *f)
{
	uint32_t v;
	memcpy(&v, (const char *)s + f->out_off, sizeof(v));
	return v;
}

START_TEST(test_field_boundaries)
{
	for (size_t k = 0; k < PM_ARRAY_SIZE(fdescs); k++) {
		/* this field at max, all others 0 */
		struct pm_in in = { .version = 1 };
		struct pm_profileme_sample s;

		*in_field(&in, &fdescs[k]) = fdescs[k].max;
		s = decode_ok(&in);
		for (size_t j = 0; j < PM_ARRAY_SIZE(fdescs); j++)
			ck_assert_msg(out_field(&s, &fdescs[j]) == (j == k ? fdescs[j].max : 0),
				      "field %s max: %s = %u", fdescs[k].name, fdescs[j].name,
				      out_field(&s, &fdescs[j]));
		/* the register holds exactly the field */
		ck_assert_uint_eq(fdescs[k].in_i_stat ? s.i_stat : s.pctr_ctl,
				  fdescs[k].in_i_stat ? in_i_stat(&in) : in_pctr_ctl(&in));

		/* this field 0, all others at max */
		memset(&in, 0, sizeof(in));
		in.version = 1;
		for (size_t j = 0; j < PM_ARRAY_SIZE(fdescs); j++)
			*in_field(&in, &fdescs[j]) = j == k ? 0 : fdescs[j].max;
		s = decode_ok(&in);
		for (size_t j = 0; j < PM_ARRAY_SIZE(fdescs); j++)
			ck_assert_msg(out_field(&s, &fdescs[j]) == (j == k ? 0 : fdescs[j].max),
				      "field %s zero: %s = %u", fdescs[k].name, fdescs[j].name,
				      out_field(&s, &fdescs[j]));
	}
}
END_TEST

START_TEST(test_bits_outside_fields_ignored)
{
	/* I_STAT bits other than 40:30 and PCTR_CTL bits 5, 48-63 carry no field. */
	uint8_t buf[28];
	struct pm_profileme_sample s = { .sz = sizeof(s) };

	pm__st32(buf, 1, false);
	pm__st64(buf + 4, 0x120000000ULL, false);
	pm__st64(buf + 12, ~0ULL & ~(0x7ffULL << 30), false);
	pm__st64(buf + 20, (1ULL << 5) | (0xffffULL << 48), false);
	ck_assert_int_eq(pm_profileme_decode(buf, sizeof(buf), &s), 0);
	for (size_t j = 0; j < PM_ARRAY_SIZE(fdescs); j++)
		ck_assert_msg(out_field(&s, &fdescs[j]) == 0, "%s picked up a foreign bit", fdescs[j].name);
}
END_TEST

/* Names from the seed patch, by TRAP_TYPE; NULL = unnamed. */
static const char *const seed_trap_names[16] = {
	"replay", NULL, "DTB double miss (3 level)", "DTB double miss (4 level)", "FP disabled",
	"unaligned", "DTB single miss", "Dstream fault", "OPCDEC", NULL, "machine check", NULL,
	"arithmetic", NULL, "MT_FPCR", "reset",
};

START_TEST(test_trap_names)
{
	for (unsigned t = 0; t < 16; t++) {
		struct pm_in in = { .version = 1, .pmpc = 0x120001000ULL, .trp = 1, .trap_type = t };
		struct pm_profileme_sample s = decode_ok(&in);
		const char *want = seed_trap_names[t] ? seed_trap_names[t] : "other (see PMPC)";

		ck_assert_int_eq(s.trapped, 1);
		ck_assert_int_eq(s.mispredicted, 0);
		ck_assert_str_eq(pm_profileme_trap_name(s.trap), want);
		ck_assert_uint_eq(s.trap_type, t);
	}
	ck_assert_ptr_null(pm_profileme_trap_name(-1));
	ck_assert_ptr_null(pm_profileme_trap_name(PM_PROFILEME_TRAP_COUNT));
}
END_TEST

START_TEST(test_redirects)
{
	static const struct { uint64_t off; const char *name; } r[] = {
		{ 0x481, "Istream access violation" }, { 0x581, "ITB miss" }, { 0x681, "interrupt" },
	};
	for (size_t i = 0; i < PM_ARRAY_SIZE(r); i++) {
		/* named by PMPC whatever TRP/killed/mis say, with high PAL base bits */
		for (int variant = 0; variant < 3; variant++) {
			struct pm_in in = { .version = 1, .pmpc = 0x8000ULL * 5 + r[i].off };
			struct pm_profileme_sample s;

			if (variant == 1) {
				in.trp = 1;
				in.killed = 1;
			} else if (variant == 2) {
				in.trp = 1;
				in.mis = 1;
				in.trap_type = 5;
			}
			s = decode_ok(&in);
			ck_assert_str_eq(pm_profileme_trap_name(s.trap), r[i].name);
			ck_assert_int_eq(s.mode, PM_PROFILEME_MODE_PAL);
			ck_assert_uint_eq(s.pal, 1);
			ck_assert_uint_eq(s.pc, (0x8000ULL * 5 + r[i].off) & ~3ULL);
		}
		/* the same offset without PALmode is not a redirect */
		struct pm_in in2 = { .version = 1, .pmpc = r[i].off - 1 };
		struct pm_profileme_sample s2 = decode_ok(&in2);
		ck_assert_str_eq(pm_profileme_trap_name(s2.trap), "none");
	}
	/* a PALmode PMPC at another offset falls back to TRAP_TYPE */
	struct pm_in in = { .version = 1, .pmpc = 0x401, .trp = 1, .trap_type = 6 };
	ck_assert_str_eq(pm_profileme_trap_name(decode_ok(&in).trap), "DTB single miss");
	in.trp = 0;
	ck_assert_str_eq(pm_profileme_trap_name(decode_ok(&in).trap), "none");
}
END_TEST

START_TEST(test_killed_stale_and_mis)
{
	struct pm_in in = { .version = 1, .pmpc = 0x120000010ULL, .trp = 1, .killed = 1, .mis = 1,
			    .trap_type = 5 };
	struct pm_profileme_sample s = decode_ok(&in);

	ck_assert_int_eq(s.trapped, 0);
	ck_assert_int_eq(s.mispredicted, 0);
	ck_assert_str_eq(pm_profileme_trap_name(s.trap), "none");
	ck_assert_uint_eq(s.trp, 1); /* the raw bit is still reported */

	in.killed = 0; /* trp + mis: a mispredict, not a trap */
	s = decode_ok(&in);
	ck_assert_int_eq(s.trapped, 1);
	ck_assert_int_eq(s.mispredicted, 1);
	ck_assert_str_eq(pm_profileme_trap_name(s.trap), "none");

	in.mis = 0;
	s = decode_ok(&in);
	ck_assert_int_eq(s.mispredicted, 0);
	ck_assert_str_eq(pm_profileme_trap_name(s.trap), "unaligned");

	in.trp = 0; in.mis = 1; /* mis without trp */
	s = decode_ok(&in);
	ck_assert_int_eq(s.trapped, 0);
	ck_assert_int_eq(s.mispredicted, 0);
}
END_TEST

START_TEST(test_mode_and_counts)
{
	struct pm_in in = { .version = 1, .pmpc = 0x120001234ULL & ~3ULL };
	ck_assert_str_eq(pm_profileme_mode_name(decode_ok(&in).mode), "user");
	in.pmpc = 0xfffffc0000310000ULL;
	ck_assert_str_eq(pm_profileme_mode_name(decode_ok(&in).mode), "kernel");
	in.pmpc = 0xfffffc0000310001ULL; /* PAL wins over bit 63 */
	ck_assert_str_eq(pm_profileme_mode_name(decode_ok(&in).mode), "PAL");
	in.pmpc = 0x120001237ULL; /* bits 1:0 cleared in pc */
	ck_assert_uint_eq(decode_ok(&in).pc, 0x120001234ULL);

	static const char *const p0[4] = { "instructions", "cycles", "instructions", "cycles" };
	static const char *const p1[4] = { "cycles", "retire delay", "bcache misses", "mbox replays" };
	for (unsigned sl1 = 0; sl1 < 4; sl1++) {
		struct pm_in c = { .version = 1, .sl1 = sl1, .sl0 = 1 };
		struct pm_profileme_sample s = decode_ok(&c);
		ck_assert_str_eq(pm_profileme_counts_name(s.pctr0_counts), p0[sl1]);
		ck_assert_str_eq(pm_profileme_counts_name(s.pctr1_counts), p1[sl1]);
	}
	ck_assert_ptr_null(pm_profileme_mode_name(3));
	ck_assert_ptr_null(pm_profileme_counts_name(-1));
}
END_TEST

START_TEST(test_versions_and_short)
{
	uint8_t buf[64];
	struct pm_profileme_sample s = { .sz = sizeof(s) };
	struct pm_in in = { .version = 0, .pmpc = 0x120000000ULL };

	put_payload(buf, &in);
	ck_assert_int_eq(pm_profileme_decode(buf, 28, &s), -PM_ERR_NOT_PROFILEME);
	ck_assert_ptr_nonnull(strstr(pm_errmsg(), "version 0"));

	in.version = 1;
	put_payload(buf, &in);
	for (size_t len = 0; len < 28; len++) {
		ck_assert_int_eq(pm_profileme_decode(buf, len, &s), -PM_ERR_NOT_PROFILEME);
		ck_assert_str_ne(pm_errmsg(), "");
	}
	ck_assert_int_eq(pm_profileme_decode(buf, 28, &s), 0);
	ck_assert_uint_eq(s.version, 1);
	ck_assert_ptr_null(s.extra);
	/* v1 with trailing bytes: not a newer payload, nothing exposed */
	ck_assert_int_eq(pm_profileme_decode(buf, 36, &s), 0);
	ck_assert_ptr_null(s.extra);

	for (uint32_t v = 2; v < 5; v++) {
		in.version = v;
		in.pctr0 = 0x12345;
		put_payload(buf, &in);
		for (int k = 0; k < 12; k++)
			buf[28 + k] = (uint8_t)(0xa0 + k);
		ck_assert_int_eq(pm_profileme_decode(buf, 40, &s), 0);
		ck_assert_uint_eq(s.version, v);
		ck_assert_uint_eq(s.pctr0, 0x12345);
		ck_assert_ptr_eq(s.extra, buf + 28);
		ck_assert_uint_eq(s.extra_len, 12);
		ck_assert_int_eq(pm_profileme_decode(buf, 28, &s), 0); /* newer version, nothing appended */
		ck_assert_ptr_null(s.extra);
		ck_assert_uint_eq(s.extra_len, 0);
	}
	in.version = 0xffffffffu;
	put_payload(buf, &in);
	ck_assert_int_eq(pm_profileme_decode(buf, 28, &s), 0);
	ck_assert_uint_eq(s.version, 0xffffffffu);

	ck_assert_int_eq(pm_profileme_decode(NULL, 28, &s), -EINVAL);
	ck_assert_int_eq(pm_profileme_decode(buf, 28, NULL), -EINVAL);
}
END_TEST

START_TEST(test_alignment)
{
	uint8_t *mem = malloc(64 + 8);
	struct pm_in in = { .version = 1, .pmpc = 0xfffffc0000312340ULL, .ovr = 5, .trp = 1,
			    .trap_type = 7, .pctr0 = 0xabcde, .pctr1 = 0x54321, .sl1 = 2, .val = 1 };

	ck_assert_ptr_nonnull(mem);
	for (size_t a = 0; a < 8; a++) {
		struct pm_profileme_sample s = { .sz = sizeof(s) };
		uint8_t *p = mem + a;

		memset(mem, 0xee, 72);
		put_payload(p, &in);
		ck_assert_int_eq(pm_profileme_decode(p, 28, &s), 0);
		ck_assert_uint_eq(s.pmpc, in.pmpc);
		ck_assert_uint_eq(s.i_stat, in_i_stat(&in));
		ck_assert_uint_eq(s.pctr_ctl, in_pctr_ctl(&in));
		ck_assert_uint_eq(s.ovr, 5);
		ck_assert_uint_eq(s.pctr0, 0xabcde);
		ck_assert_uint_eq(s.pctr1, 0x54321);
		ck_assert_str_eq(pm_profileme_trap_name(s.trap), "Dstream fault");
	}
	free(mem);
}
END_TEST

START_TEST(test_byte_layout_is_le)
{
	/* Literal bytes, so the test means the same on a big-endian host. */
	static const uint8_t b[28] = {
		0x01, 0x00, 0x00, 0x00,                         /* version 1 */
		0x10, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* pmpc */
		0x00, 0x00, 0x00, 0x80, 0x80, 0x00, 0x00, 0x00, /* i_stat: bit 31 (ovr=2), bit 39 (trp) */
		0x01, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, /* pctr_ctl: tak, pctr0 bit 0 */
	};
	struct pm_profileme_sample s = { .sz = sizeof(s) };

	ck_assert_int_eq(pm_profileme_decode(b, sizeof(b), &s), 0);
	ck_assert_uint_eq(s.pmpc, 0x8877665544332210ULL);
	ck_assert_uint_eq(s.i_stat, 0x8080000000ULL);
	ck_assert_uint_eq(s.ovr, 2);
	ck_assert_uint_eq(s.trp, 1);
	ck_assert_uint_eq(s.tak, 1);
	ck_assert_uint_eq(s.pctr0, 1);
	ck_assert_int_eq(s.mode, PM_PROFILEME_MODE_KERNEL);
	ck_assert_uint_eq(s.pal, 0);
}
END_TEST

START_TEST(test_struct_sz)
{
	struct {
		struct pm_profileme_sample s;
		uint8_t guard[16];
	} box;
	struct pm_in in = { .version = 1, .pmpc = 0x120000400ULL, .ovr = 3 };
	uint8_t buf[28];
	size_t small = offsetof(struct pm_profileme_sample, ovr);

	put_payload(buf, &in);
	memset(&box, 0x5a, sizeof(box));
	box.s.sz = small;
	ck_assert_int_eq(pm_profileme_decode(buf, 28, &box.s), 0);
	ck_assert_uint_eq(box.s.sz, small);
	ck_assert_uint_eq(box.s.pmpc, 0x120000400ULL);
	for (size_t i = small; i < sizeof(box); i++)
		ck_assert_msg(((uint8_t *)&box)[i] == 0x5a, "byte %zu written past sz", i);
	box.s.sz = 2;
	ck_assert_int_eq(pm_profileme_decode(buf, 28, &box.s), -PM_ERR_STRUCT_SIZE);
}
END_TEST

START_TEST(test_ips)
{
	struct pm_in in = { .version = 1, .pmpc = 0x120001000ULL };
	struct pm_profileme_sample s = decode_ok(&in);
	uint64_t pc = 0, ip = 0;

	ck_assert_int_eq(pm_profileme_ips(&s, 0x120001000ULL, &pc, &ip), 0);
	ck_assert_uint_eq(pc, 0x120001000ULL);
	ck_assert_uint_eq(ip, 0x120001000ULL);
	/* PALmode PMPC: the kernel kept the interrupted PC */
	in.pmpc = 0x8581;
	s = decode_ok(&in);
	ck_assert_int_eq(pm_profileme_ips(&s, 0x120002224ULL, &pc, &ip), 1);
	ck_assert_uint_eq(pc, 0x8580);
	ck_assert_uint_eq(ip, 0x120002224ULL);
	ck_assert_int_eq(pm_profileme_ips(NULL, 0, NULL, NULL), -EINVAL);
}
END_TEST

/* The kernel's attribution rule (seed: alpha_perf_event_profileme()). */
START_TEST(test_attribute)
{
	const uint64_t user_pc = 0x120001000ULL, user_ip = 0x120002224ULL;
	const uint64_t kern_pc = 0xfffffc0000312340ULL;
	struct {
		uint64_t pmpc, ip;
		int charge, mode, skid_valid, trap;
		uint64_t addr;
		int64_t skid;
	} t[] = {
		/* user PMPC, ip = PMPC: the profiled pc, skid 0 */
		{ user_pc, user_pc, PM_PROFILEME_CHARGE_PC, PM_PROFILEME_MODE_USER, 1,
		  PM_PROFILEME_TRAP_NONE, user_pc, 0 },
		/* kernel PMPC (interrupt taken in user mode: ip still = PMPC) */
		{ kern_pc, kern_pc, PM_PROFILEME_CHARGE_PC, PM_PROFILEME_MODE_KERNEL, 1,
		  PM_PROFILEME_TRAP_NONE, kern_pc, 0 },
		/* a user ip that differs (not what this driver writes): distance shown */
		{ user_pc, user_pc + 0x40, PM_PROFILEME_CHARGE_PC, PM_PROFILEME_MODE_USER, 1,
		  PM_PROFILEME_TRAP_NONE, user_pc, 0x40 },
		/* user PMPC in a kernel thread: the kernel kept the interrupted PC */
		{ user_pc, kern_pc, PM_PROFILEME_CHARGE_IP, PM_PROFILEME_MODE_KERNEL, 0,
		  PM_PROFILEME_TRAP_NONE, kern_pc, 0 },
		/* kernel PMPC, user ip: not comparable */
		{ kern_pc, user_ip, PM_PROFILEME_CHARGE_PC, PM_PROFILEME_MODE_KERNEL, 0,
		  PM_PROFILEME_TRAP_NONE, kern_pc, 0 },
		/* PAL redirects: the trapping instruction (the ip), trap named */
		{ 0x8481, user_ip, PM_PROFILEME_CHARGE_REDIRECT, PM_PROFILEME_MODE_USER, 0,
		  PM_PROFILEME_TRAP_ISTREAM_ACV, user_ip, 0 },
		{ 0x10581, user_ip, PM_PROFILEME_CHARGE_REDIRECT, PM_PROFILEME_MODE_USER, 0,
		  PM_PROFILEME_TRAP_ITB_MISS, user_ip, 0 },
		{ 0x681, kern_pc, PM_PROFILEME_CHARGE_REDIRECT, PM_PROFILEME_MODE_KERNEL, 0,
		  PM_PROFILEME_TRAP_INTERRUPT, kern_pc, 0 },
		/* inside PALcode: [PALcode] at the physical address */
		{ 0x8401, user_ip, PM_PROFILEME_CHARGE_PALCODE, PM_PROFILEME_MODE_PAL, 0,
		  PM_PROFILEME_TRAP_NONE, 0x8400, 0 },
		{ 0x2101, 0x2100, PM_PROFILEME_CHARGE_PALCODE, PM_PROFILEME_MODE_PAL, 0,
		  PM_PROFILEME_TRAP_NONE, 0x2100, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_in in = { .version = 1, .pmpc = t[i].pmpc };
		struct pm_profileme_sample s = decode_ok(&in);
		struct pm_profileme_attribution a = { .sz = sizeof(a) };

		ck_assert_int_eq(pm_profileme_attribute(&s, t[i].ip, &a), 0);
		ck_assert_msg(a.charge == t[i].charge, "case %zu: charge %d", i, a.charge);
		ck_assert_uint_eq(a.addr, t[i].addr);
		ck_assert_int_eq(a.mode, t[i].mode);
		ck_assert_int_eq(a.skid_valid, t[i].skid_valid);
		ck_assert_int_eq(a.skid, t[i].skid);
		ck_assert_int_eq(a.trap, t[i].trap);
		ck_assert_uint_eq(a.pc, t[i].pmpc & ~3ULL);
		ck_assert_uint_eq(a.ip, t[i].ip);
		ck_assert_uint_eq(a.sz, sizeof(a));
	}
	/* the trap of a non-PAL sample follows the killed/stale rule */
	{
		struct pm_in in = { .version = 1, .pmpc = user_pc, .trp = 1, .trap_type = 5 };
		struct pm_profileme_sample s = decode_ok(&in);
		struct pm_profileme_attribution a = { .sz = sizeof(a) };

		ck_assert_int_eq(pm_profileme_attribute(&s, user_pc, &a), 0);
		ck_assert_int_eq(a.trap, PM_PROFILEME_TRAP_UNALIGNED);
		in.killed = 1;
		s = decode_ok(&in);
		ck_assert_int_eq(pm_profileme_attribute(&s, user_pc, &a), 0);
		ck_assert_int_eq(a.trap, PM_PROFILEME_TRAP_NONE);
	}
	/* struct sizes: never written past sz */
	{
		struct pm_in in = { .version = 1, .pmpc = 0x8581 };
		struct pm_profileme_sample s = decode_ok(&in);
		unsigned char buf[sizeof(struct pm_profileme_attribution) + 8];
		struct pm_profileme_attribution *a = (void *)buf;
		size_t small = offsetof(struct pm_profileme_attribution, mode);

		memset(buf, 0xee, sizeof(buf));
		a->sz = small;
		ck_assert_int_eq(pm_profileme_attribute(&s, user_ip, a), 0);
		ck_assert_uint_eq(a->addr, user_ip);
		for (size_t k = small; k < sizeof(buf); k++)
			ck_assert_uint_eq(buf[k], 0xee);
		a->sz = 2;
		ck_assert_int_eq(pm_profileme_attribute(&s, 0, a), -PM_ERR_STRUCT_SIZE);
		a->sz = sizeof(*a);
		s.sz = offsetof(struct pm_profileme_sample, i_stat);
		ck_assert_int_eq(pm_profileme_attribute(&s, 0, a), -PM_ERR_STRUCT_SIZE);
		ck_assert_int_eq(pm_profileme_attribute(NULL, 0, a), -EINVAL);
		ck_assert_int_eq(pm_profileme_attribute(&s, 0, NULL), -EINVAL);
	}
	ck_assert_str_eq(pm_profileme_charge_name(PM_PROFILEME_CHARGE_PC), "pc");
	ck_assert_str_eq(pm_profileme_charge_name(PM_PROFILEME_CHARGE_REDIRECT), "redirect");
	ck_assert_str_eq(pm_profileme_charge_name(PM_PROFILEME_CHARGE_PALCODE), "PALcode");
	ck_assert_str_eq(pm_profileme_charge_name(PM_PROFILEME_CHARGE_IP), "ip");
	ck_assert_ptr_null(pm_profileme_charge_name(PM_PROFILEME_CHARGE_COUNT));
	ck_assert_ptr_null(pm_profileme_charge_name(-1));
}
END_TEST

/* ---- generic access ---- */

static const char *const profileme_names[] = {
	"version", "pmpc", "i_stat", "pctr_ctl", "ovr", "icm", "trap_type", "lso", "trp", "mis", "tak",
	"val", "sl1", "sl0", "pctr1", "killed", "stalled", "pctr0", "pal", "pc", "mode", "trapped",
	"trap", "mispredicted", "pctr0_counts", "pctr1_counts",
};

START_TEST(test_registry)
{
	const pm_raw_decoder *d;

	ck_assert_uint_eq(pm_raw_decoder_count(), 3);
	ck_assert_ptr_null(pm_raw_decoder_get(3));
	for (size_t i = 0; i < pm_raw_decoder_count(); i++) {
		d = pm_raw_decoder_get(i);
		ck_assert_ptr_eq(pm_raw_decoder_find(pm_raw_decoder_name(d)), d);
		ck_assert_uint_le(pm_raw_field_count(d), PM__RAW_MAXF);
		for (size_t j = 0; j < pm_raw_field_count(d); j++) {
			ck_assert_int_eq(pm_raw_field_index(d, pm_raw_field_name(d, j)), (int)j);
			ck_assert_int_ge(pm_raw_field_kind(d, j), 0);
		}
		ck_assert_ptr_null(pm_raw_field_name(d, pm_raw_field_count(d)));
	}
	ck_assert_ptr_null(pm_raw_decoder_find("nope"));
	ck_assert_ptr_nonnull(strstr(pm_errmsg(), "nope"));
	d = pm_raw_decoder_find("alpha_profileme");
	ck_assert_str_eq(pm_raw_decoder_key(d), "profileme");
	for (size_t i = 0; i < PM_ARRAY_SIZE(profileme_names); i++)
		ck_assert_msg(pm_raw_field_index(d, profileme_names[i]) >= 0, "missing %s", profileme_names[i]);
	ck_assert_int_eq(pm_raw_field_kind(d, (size_t)pm_raw_field_index(d, "pmpc")), PM_RAW_KIND_HEX);
	ck_assert_int_eq(pm_raw_field_flags(d, (size_t)pm_raw_field_index(d, "pmpc")), PM_RAW_FIELD_REGISTER);
	ck_assert_int_eq(pm_raw_field_kind(d, (size_t)pm_raw_field_index(d, "trap")), PM_RAW_KIND_CODE);
	ck_assert_str_eq(pm_raw_field_code_name(d, NULL, (size_t)pm_raw_field_index(d, "trap"),
						PM_PROFILEME_TRAP_ITB_MISS), "ITB miss");
	ck_assert_ptr_null(pm_raw_field_code_name(d, NULL, (size_t)pm_raw_field_index(d, "pmpc"), 0));
}
END_TEST

static uint64_t val_of(const pm_raw_decoder *d, const struct pm_raw_value *v, const char *name)
{
	int i = pm_raw_field_index(d, name);
	ck_assert_msg(i >= 0, "no field %s", name);
	ck_assert_msg(v[i].present, "field %s absent", name);
	return v[i].u;
}

static int present_of(const pm_raw_decoder *d, const struct pm_raw_value *v, const char *name)
{
	int i = pm_raw_field_index(d, name);
	ck_assert_msg(i >= 0, "no field %s", name);
	return v[i].present;
}

static const char *str_of(const pm_raw_decoder *d, const struct pm_raw_value *v, const char *name)
{
	int i = pm_raw_field_index(d, name);
	ck_assert_msg(i >= 0 && v[i].present, "field %s absent", name);
	return v[i].str;
}

START_TEST(test_generic_profileme_be_context)
{
	const pm_raw_decoder *d = pm_raw_decoder_find("alpha_profileme");
	struct pm_raw_value v[PM__RAW_MAXF];
	pm_raw_ctx *ctx;
	uint8_t buf[48];
	struct pm_in in = { .version = 2, .pmpc = 0x120003000ULL, .trp = 1, .trap_type = 12, .sl1 = 1,
			    .pctr0 = 77, .pctr1 = 99, .ovr = 4 };

	ck_assert_int_eq(pm_raw_ctx_new(&ctx), 0);
	put_payload(buf + 4, &in);
	memcpy(buf + 32, "\x01\x02\x03\x04", 4);
	for (int be = 0; be < 2; be++) {
		/* the recording's byte order does not change a ProfileMe payload */
		ck_assert_int_eq(pm_raw_ctx_set_big_endian(ctx, be), 0);
		memset(v, 0, sizeof(v));
		v[0].sz = sizeof(v[0]);
		ck_assert_int_eq(pm_raw_decode(d, ctx, buf + 4, 32, v, PM_ARRAY_SIZE(v)),
				 (int)pm_raw_field_count(d));
		ck_assert_uint_eq(val_of(d, v, "version"), 2);
		ck_assert_uint_eq(val_of(d, v, "pmpc"), 0x120003000ULL);
		ck_assert_uint_eq(val_of(d, v, "pctr0"), 77);
		ck_assert_uint_eq(val_of(d, v, "pctr1"), 99);
		ck_assert_uint_eq(val_of(d, v, "ovr"), 4);
		ck_assert_str_eq(str_of(d, v, "trap"), "arithmetic");
		ck_assert_str_eq(str_of(d, v, "mode"), "user");
		ck_assert_str_eq(str_of(d, v, "pctr0_counts"), "cycles");
		ck_assert_str_eq(str_of(d, v, "pctr1_counts"), "retire delay");
		ck_assert_uint_eq(val_of(d, v, "extra"), 4);
		ck_assert_mem_eq(v[pm_raw_field_index(d, "extra")].bytes, "\x01\x02\x03\x04", 4);
	}
	/* row form */
	uint64_t row[PM__RAW_MAXF];
	uint8_t pres[PM__RAW_MAXF];
	ck_assert_int_eq(pm_raw_decode_row(d, ctx, buf + 4, 28, row, pres, PM__RAW_MAXF),
			 (int)pm_raw_field_count(d));
	ck_assert_uint_eq(row[pm_raw_field_index(d, "trap")], PM_PROFILEME_TRAP_ARITHMETIC);
	ck_assert_uint_eq(pres[pm_raw_field_index(d, "extra")], 0);
	/* errors */
	ck_assert_int_eq(pm_raw_decode_row(d, ctx, buf + 4, 27, row, pres, PM__RAW_MAXF),
			 -PM_ERR_NOT_PROFILEME);
	v[0].sz = 4;
	ck_assert_int_eq(pm_raw_decode(d, ctx, buf + 4, 28, v, 3), -PM_ERR_STRUCT_SIZE);
	pm_raw_ctx_free(ctx);
}
END_TEST

START_TEST(test_value_stride)
{
	/* A caller whose struct pm_raw_value is larger (newer header): stride = sz. */
	struct big { struct pm_raw_value v; uint64_t future[2]; } arr[PM__RAW_MAXF];
	const pm_raw_decoder *d = pm_raw_decoder_find("alpha_profileme");
	uint8_t buf[28];
	struct pm_in in = { .version = 1, .pmpc = 0x120000040ULL, .pctr0 = 5 };

	put_payload(buf, &in);
	memset(arr, 0, sizeof(arr));
	arr[0].v.sz = sizeof(struct big);
	ck_assert_int_gt(pm_raw_decode(d, NULL, buf, 28, &arr[0].v, PM__RAW_MAXF), 0);
	ck_assert_uint_eq(arr[pm_raw_field_index(d, "pmpc")].v.u, 0x120000040ULL);
	ck_assert_uint_eq(arr[pm_raw_field_index(d, "pctr0")].v.u, 5);
	ck_assert_uint_eq(arr[pm_raw_field_index(d, "pctr0")].future[0], 0);
}
END_TEST

START_TEST(test_json_text)
{
	const pm_raw_decoder *d = pm_raw_decoder_find("alpha_profileme");
	char out[2048];
	uint8_t buf[28];
	struct pm_in in = { .version = 1, .pmpc = 0x8581, .pctr0 = 10, .sl1 = 3, .killed = 1 };
	int n;

	put_payload(buf, &in);
	n = pm_raw_format_json(d, NULL, buf, 28, out, sizeof(out));
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(strlen(out), (size_t)n);
	ck_assert_ptr_nonnull(strstr(out, "\"version\":1,"));
	ck_assert_ptr_nonnull(strstr(out, "\"pmpc\":\"0x8581\""));
	ck_assert_ptr_nonnull(strstr(out, "\"trap\":\"ITB miss\""));
	ck_assert_ptr_nonnull(strstr(out, "\"mode\":\"PAL\""));
	ck_assert_ptr_nonnull(strstr(out, "\"killed\":true"));
	ck_assert_ptr_nonnull(strstr(out, "\"pctr0\":10"));
	ck_assert_ptr_nonnull(strstr(out, "\"pctr1_counts\":\"mbox replays\""));
	ck_assert_ptr_null(strstr(out, "extra"));
	ck_assert(out[0] == '{' && out[n - 1] == '}');
	/* truncation: snprintf semantics */
	char tiny[8];
	ck_assert_int_eq(pm_raw_format_json(d, NULL, buf, 28, tiny, sizeof(tiny)), n);
	ck_assert_uint_eq(strlen(tiny), 7);
	ck_assert_int_eq(pm_raw_format_json(d, NULL, buf, 28, NULL, 0), n);

	n = pm_raw_format_text(d, NULL, buf, 28, "  ", out, sizeof(out));
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(strstr(out, "  PMPC "));
	ck_assert_ptr_nonnull(strstr(out, "trap \"ITB miss\""));
	ck_assert_ptr_nonnull(strstr(out, "  I_STAT "));
	ck_assert_ptr_nonnull(strstr(out, "  PCTR_CTL "));
	ck_assert_ptr_nonnull(strstr(out, "pctr0_counts cycles"));
	ck_assert_int_eq(out[n - 1], '\n');
	ck_assert_int_eq(pm_raw_format_text(d, NULL, buf, 3, NULL, out, sizeof(out)), -PM_ERR_NOT_PROFILEME);
}
END_TEST

/* ---- selection ---- */

START_TEST(test_select)
{
	pm_raw_ctx *ctx;
	const pm_raw_decoder *d = (const pm_raw_decoder *)1;
	struct pm_attr a;

	ck_assert_int_eq(pm_raw_ctx_new(&ctx), 0);
	ck_assert_str_ne(pm_raw_ctx_arch(ctx), "");
	pm_attr_init(&a);
	a.type = PM_TYPE_RAW;
	a.config = 2 | PM_PROFILEME_CONFIG_BIT;
	a.sample_type = PM_SAMPLE_IP | PM_SAMPLE_RAW;

	ck_assert_int_eq(pm_raw_ctx_set_arch(ctx, "x86_64"), 0);
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), -PM_ERR_NO_DECODER);
	ck_assert_ptr_null(d);

	ck_assert_int_eq(pm_raw_ctx_set_arch(ctx, "alpha"), 0);
	ck_assert_str_eq(pm_raw_ctx_arch(ctx), "alpha");
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), 0);
	ck_assert_str_eq(pm_raw_decoder_name(d), "alpha_profileme");
	a.config = 2; /* aggregate mode */
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), -PM_ERR_NO_DECODER);
	a.flags |= 2ULL << PM_ATTR_PRECISE_IP_SHIFT; /* precise_ip selects ProfileMe */
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), 0);
	a.type = PM_TYPE_HARDWARE;
	a.config = 0;
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), 0);
	a.type = PM_TYPE_SOFTWARE;
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), -PM_ERR_NO_DECODER);
	/* the cpu PMU under a dynamic type number */
	ck_assert_int_eq(pm_raw_ctx_add_pmu(ctx, 9, "cpu"), 0);
	a.type = 9;
	a.flags = 0;
	a.config = 1 | PM_PROFILEME_CONFIG_BIT;
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), 0);
	ck_assert_str_eq(pm_raw_decoder_name(d), "alpha_profileme");
	a.sample_type = PM_SAMPLE_IP; /* no RAW: nothing to decode */
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), -PM_ERR_NO_DECODER);

	/* IBS by PMU type (names as in PMU_MAPPINGS) */
	ck_assert_int_eq(pm_raw_ctx_set_arch(ctx, "x86_64"), 0);
	ck_assert_int_eq(pm_raw_ctx_add_pmu(ctx, 11, "ibs_fetch"), 0);
	ck_assert_int_eq(pm_raw_ctx_add_pmu(ctx, 12, "ibs_op"), 0);
	a.sample_type = PM_SAMPLE_RAW;
	a.type = 11;
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), 0);
	ck_assert_str_eq(pm_raw_decoder_name(d), "ibs_fetch");
	a.type = 12;
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), 0);
	ck_assert_str_eq(pm_raw_decoder_name(d), "ibs_op");
	ck_assert_int_eq(pm_raw_ctx_add_pmu(ctx, 12, "msr"), 0); /* replaced */
	ck_assert_int_eq(pm_raw_ctx_select(ctx, &a, &d), -PM_ERR_NO_DECODER);

	ck_assert_int_eq(pm_raw_ctx_select(NULL, &a, &d), -EINVAL);
	ck_assert_int_eq(pm_raw_ctx_add_pmu(ctx, 1, NULL), -EINVAL);
	ck_assert_int_eq(pm_raw_ctx_set_pmu_cap(ctx, "ibs_op", NULL, "1"), -EINVAL);
	pm_raw_ctx_free(ctx);
	pm_raw_ctx_free(NULL);
}
END_TEST

/* ---- IBS ---- */

static size_t ibs_payload(uint8_t *p, uint32_t caps, const uint64_t *regs, size_t n, bool be)
{
	pm__st32(p, caps, be);
	for (size_t i = 0; i < n; i++)
		pm__st64(p + 4 + 8 * i, regs[i], be);
	return 4 + 8 * n;
}

static pm_raw_ctx *ibs_ctx(bool be, bool zen4, const char *cpuid)
{
	pm_raw_ctx *ctx;

	ck_assert_int_eq(pm_raw_ctx_new(&ctx), 0);
	ck_assert_int_eq(pm_raw_ctx_set_big_endian(ctx, be), 0);
	if (zen4)
		ck_assert_int_eq(pm_raw_ctx_set_pmu_cap(ctx, "ibs_op", "zen4_ibs_extensions", "1"), 0);
	if (cpuid)
		ck_assert_int_eq(pm_raw_ctx_set_cpuid(ctx, cpuid), 0);
	return ctx;
}

static void decode_vals(const char *dec, pm_raw_ctx *ctx, const uint8_t *p, size_t len,
			struct pm_raw_value *v)
{
	const pm_raw_decoder *d = pm_raw_decoder_find(dec);

	memset(v, 0, sizeof(*v) * PM__RAW_MAXF);
	v[0].sz = sizeof(*v);
	ck_assert_int_eq(pm_raw_decode(d, ctx, p, len, v, PM__RAW_MAXF), (int)pm_raw_field_count(d));
}

START_TEST(test_ibs_fetch)
{
	const pm_raw_decoder *d = pm_raw_decoder_find("ibs_fetch");
	struct pm_raw_value v[PM__RAW_MAXF];
	uint8_t buf[8 + 64];
	/* FETCH_CTL: maxcnt 0x1000 [15:0], cnt 0x20 [31:16], lat 300 [47:32], en [48], val [49],
	 * comp [50], ic_miss [51], phy_addr_valid [52], pgsz 1 [54:53], l2tlb_miss [56], l2 miss [58],
	 * zen4: oc_miss [60] */
	uint64_t ctl = 0x1000ULL | 0x20ULL << 16 | 300ULL << 32 | 1ULL << 48 | 1ULL << 49 | 1ULL << 50 |
		       1ULL << 51 | 1ULL << 52 | 1ULL << 53 | 1ULL << 56 | 1ULL << 58 | 1ULL << 60;
	uint64_t regs[4] = { ctl, 0x7f0012345678ULL, 0x12345678ULL, 0x1234ULL << 16 | 77 };

	for (int be = 0; be < 2; be++) {
		for (size_t a = 0; a < 8; a++) {
			pm_raw_ctx *ctx = ibs_ctx(be, false, NULL);
			size_t len = ibs_payload(buf + a, 0x3ff, regs, 4, be);

			decode_vals("ibs_fetch", ctx, buf + a, len, v);
			ck_assert_uint_eq(val_of(d, v, "caps"), 0x3ff);
			ck_assert_uint_eq(val_of(d, v, "fetch_ctl"), ctl);
			ck_assert_uint_eq(val_of(d, v, "fetch_maxcnt"), 0x1000ULL << 4);
			ck_assert_uint_eq(val_of(d, v, "fetch_cnt"), 0x20ULL << 4);
			ck_assert_uint_eq(val_of(d, v, "fetch_lat"), 300);
			ck_assert_uint_eq(val_of(d, v, "valid"), 1);
			ck_assert_uint_eq(val_of(d, v, "ic_miss"), 1);
			ck_assert_str_eq(str_of(d, v, "l1tlb_pgsz"), "2MB");
			ck_assert_uint_eq(val_of(d, v, "l1tlb_miss"), 0);
			ck_assert_uint_eq(val_of(d, v, "l2tlb_miss"), 1);
			ck_assert_uint_eq(val_of(d, v, "fetch_l2_miss"), 1);
			ck_assert_uint_eq(val_of(d, v, "fetch_linaddr"), 0x7f0012345678ULL);
			ck_assert_uint_eq(val_of(d, v, "fetch_physaddr"), 0x12345678ULL);
			ck_assert_uint_eq(val_of(d, v, "itlb_refill_lat"), 77);
			ck_assert_int_eq(present_of(d, v, "fetch_oc_miss"), 0); /* no Zen 4 caps */
			ck_assert_int_eq(present_of(d, v, "extra"), 0);
			pm_raw_ctx_free(ctx);
		}
	}

	/* Zen 4 caps: the extension bits appear */
	pm_raw_ctx *ctx = ibs_ctx(false, true, NULL);
	size_t len = ibs_payload(buf, 0, regs, 4, false);
	decode_vals("ibs_fetch", ctx, buf, len, v);
	ck_assert_uint_eq(val_of(d, v, "fetch_oc_miss"), 1);
	ck_assert_uint_eq(val_of(d, v, "fetch_l3_miss"), 0);
	ck_assert_uint_eq(val_of(d, v, "l3_miss_only"), 0);
	pm_raw_ctx_free(ctx);

	/* invalid-marked: no PhyAddrValid, no Comp -> physaddr, pgsz, l2 miss absent */
	regs[0] = ctl & ~(1ULL << 52) & ~(1ULL << 50);
	len = ibs_payload(buf, 0, regs, 3, false); /* and no IC_IBS_EXTD_CTL */
	ctx = ibs_ctx(false, false, NULL);
	decode_vals("ibs_fetch", ctx, buf, len, v);
	ck_assert_int_eq(present_of(d, v, "fetch_physaddr"), 0);
	ck_assert_int_eq(present_of(d, v, "l1tlb_pgsz"), 0);
	ck_assert_int_eq(present_of(d, v, "fetch_l2_miss"), 0);
	ck_assert_int_eq(present_of(d, v, "ic_ibs_extd_ctl"), 0);
	ck_assert_int_eq(present_of(d, v, "itlb_refill_lat"), 0);
	ck_assert_uint_eq(val_of(d, v, "fetch_linaddr"), 0x7f0012345678ULL);

	/* not a valid sample (FetchVal clear): only the control register */
	regs[0] = ctl & ~(1ULL << 49);
	len = ibs_payload(buf, 0, regs, 4, false);
	decode_vals("ibs_fetch", ctx, buf, len, v);
	ck_assert_uint_eq(val_of(d, v, "valid"), 0);
	ck_assert_uint_eq(val_of(d, v, "fetch_lat"), 300);
	ck_assert_int_eq(present_of(d, v, "fetch_linaddr"), 0);
	ck_assert_int_eq(present_of(d, v, "fetch_physaddr"), 0);
	pm_raw_ctx_free(ctx);

	/* erratum 1238/1347 family 19h model 1: no IcMiss, other page size table */
	regs[0] = ctl;
	len = ibs_payload(buf, 0, regs, 4, false);
	ctx = ibs_ctx(false, false, "AuthenticAMD,25,1,1");
	decode_vals("ibs_fetch", ctx, buf, len, v);
	ck_assert_int_eq(present_of(d, v, "ic_miss"), 0);
	ck_assert_str_eq(str_of(d, v, "l1tlb_pgsz"), "16KB");
	pm_raw_ctx_free(ctx);

	/* too short for the control register; extra registers exposed */
	uint64_t row[PM__RAW_MAXF];
	ck_assert_int_eq(pm_raw_decode_row(d, NULL, buf, 11, row, NULL, PM__RAW_MAXF), -PM_ERR_TRUNCATED);
	uint64_t regs5[5] = { ctl, 1, 2, 3, 0xdeadbeefULL };
	len = ibs_payload(buf, 0, regs5, 5, pm__host_big_endian());
	decode_vals("ibs_fetch", NULL, buf, len, v);
	ck_assert_uint_eq(val_of(d, v, "extra"), 8);
	ck_assert_ptr_eq(v[pm_raw_field_index(d, "extra")].bytes, buf + 36);
}
END_TEST

START_TEST(test_ibs_op)
{
	const pm_raw_decoder *d = pm_raw_decoder_find("ibs_op");
	struct pm_raw_value v[PM__RAW_MAXF];
	uint8_t buf[8 + 96];
	/* OP_CTL: maxcnt 0x8000 [15:0], ext 0x3 [26:20], en [17], val [18], cnt_ctl [19],
	 * curcnt 0x123 [58:32], l3_miss_only [16] */
	uint64_t ctl = 0x8000ULL | 3ULL << 20 | 1ULL << 17 | 1ULL << 18 | 1ULL << 19 | 0x123ULL << 32 |
		       1ULL << 16;
	/* OP_DATA: comp_to_ret 11 [15:0], tag_to_ret 22 [31:16], brn_taken [35], brn_ret [37], fuse [39] */
	uint64_t data = 11 | 22ULL << 16 | 1ULL << 35 | 1ULL << 37 | 1ULL << 39;
	/* OP_DATA2: data_src lo 1 [2:0], hi 1 [7:6] (zen4: 9 -> reserved; legacy 1), rmt_node [4],
	 * cache_hit_st [5] */
	uint64_t data2 = 2 | 1ULL << 4 | 1ULL << 5;
	/* OP_DATA3: ld_op [0], dc_miss [7], lin valid [17], phys invalid, l2_miss [20],
	 * width 4 -> 8 bytes [25:22], open reqs 5 [31:26], miss lat 200 [47:32], tlb lat 9 [63:48] */
	uint64_t data3 = 1 | 1ULL << 7 | 1ULL << 17 | 1ULL << 20 | 4ULL << 22 | 5ULL << 26 |
			 200ULL << 32 | 9ULL << 48;
	uint64_t regs[8] = { ctl, 0x401000ULL, data, data2, data3, 0x7ffe0000ULL, 0xabc000ULL,
			     0x402000ULL };

	for (int be = 0; be < 2; be++) {
		for (size_t a = 0; a < 8; a++) {
			pm_raw_ctx *ctx = ibs_ctx(be, false, NULL);
			size_t len = ibs_payload(buf + a, 0x1f, regs, 8, be);

			decode_vals("ibs_op", ctx, buf + a, len, v);
			ck_assert_uint_eq(val_of(d, v, "opmaxcnt"), ((3ULL << 16) | 0x8000ULL) << 4);
			ck_assert_uint_eq(val_of(d, v, "op_en"), 1);
			ck_assert_uint_eq(val_of(d, v, "op_val"), 1);
			ck_assert_str_eq(str_of(d, v, "cnt_ctl"), "uOps");
			ck_assert_uint_eq(val_of(d, v, "opcurcnt"), 0x123);
			ck_assert_int_eq(present_of(d, v, "l3_miss_only"), 0);
			ck_assert_uint_eq(val_of(d, v, "op_rip"), 0x401000ULL);
			ck_assert_uint_eq(val_of(d, v, "comp_to_ret_ctr"), 11);
			ck_assert_uint_eq(val_of(d, v, "tag_to_ret_ctr"), 22);
			ck_assert_uint_eq(val_of(d, v, "op_brn_taken"), 1);
			ck_assert_uint_eq(val_of(d, v, "op_brn_misp"), 0);
			ck_assert_uint_eq(val_of(d, v, "op_brn_fuse"), 1);
			ck_assert_str_eq(str_of(d, v, "data_src"), "Local node cache");
			ck_assert_str_eq(str_of(d, v, "cache_hit_st"), "O-state");
			ck_assert_uint_eq(val_of(d, v, "rmt_node"), 1);
			ck_assert_uint_eq(val_of(d, v, "ld_op"), 1);
			ck_assert_uint_eq(val_of(d, v, "st_op"), 0);
			ck_assert_uint_eq(val_of(d, v, "dc_miss"), 1);
			ck_assert_uint_eq(val_of(d, v, "l2_miss"), 1);
			ck_assert_uint_eq(val_of(d, v, "op_mem_width"), 8);
			ck_assert_uint_eq(val_of(d, v, "op_dc_miss_open_mem_reqs"), 5);
			ck_assert_uint_eq(val_of(d, v, "dc_miss_lat"), 200);
			ck_assert_uint_eq(val_of(d, v, "tlb_refill_lat"), 9);
			ck_assert_uint_eq(val_of(d, v, "dc_linaddr"), 0x7ffe0000ULL);
			ck_assert_int_eq(present_of(d, v, "dc_physaddr"), 0); /* invalid-marked */
			ck_assert_uint_eq(val_of(d, v, "br_target"), 0x402000ULL);
			pm_raw_ctx_free(ctx);
		}
	}

	/* RIP invalid, not a branch, target 0, no memory width; Zen 4 data source */
	regs[2] = 1ULL << 38;
	regs[3] = 1 | 1ULL << 6 | 1ULL << 5; /* src = 1 | (1 << 3) = 9 with Zen 4 */
	regs[4] = 0;
	regs[7] = 0x402000ULL;
	pm_raw_ctx *ctx = ibs_ctx(false, true, NULL);
	size_t len = ibs_payload(buf, 0, regs, 8, false);
	decode_vals("ibs_op", ctx, buf, len, v);
	ck_assert_int_eq(present_of(d, v, "op_rip"), 0);
	ck_assert_int_eq(present_of(d, v, "op_brn_taken"), 0);
	ck_assert_int_eq(present_of(d, v, "br_target"), 0);
	ck_assert_int_eq(present_of(d, v, "op_mem_width"), 0);
	ck_assert_int_eq(present_of(d, v, "dc_linaddr"), 0);
	ck_assert_uint_eq(val_of(d, v, "l3_miss_only"), 1);
	ck_assert_uint_eq(val_of(d, v, "data_src"), 9);
	ck_assert_str_eq(str_of(d, v, "data_src"), "(reserved)");
	ck_assert_int_eq(present_of(d, v, "cache_hit_st"), 0);
	regs[3] = 5 | 1ULL << 5; /* zen4 src 5: other CCX, other node, with hit state */
	len = ibs_payload(buf, 0, regs, 8, false);
	decode_vals("ibs_op", ctx, buf, len, v);
	ck_assert_str_eq(str_of(d, v, "data_src"), "Another CCX cache in a different NUMA node");
	ck_assert_str_eq(str_of(d, v, "cache_hit_st"), "O-state");
	ck_assert_int_eq(present_of(d, v, "strm_st"), 0);
	ck_assert_int_eq(pm_raw_ctx_set_pmu_cap(ctx, "ibs_op", "strmst", "1"), 0);
	ck_assert_int_eq(pm_raw_ctx_set_pmu_cap(ctx, "ibs_op", "ldlat", "1"), 0);
	regs[0] = ctl | 5ULL << 59 | 1ULL << 63;
	regs[3] |= 1ULL << 8;
	len = ibs_payload(buf, 0, regs, 8, false);
	decode_vals("ibs_op", ctx, buf, len, v);
	ck_assert_uint_eq(val_of(d, v, "strm_st"), 1);
	ck_assert_uint_eq(val_of(d, v, "ldlat_thrsh"), 5);
	ck_assert_uint_eq(val_of(d, v, "ldlat_en"), 1);
	ck_assert_int_eq(pm_raw_ctx_set_pmu_cap(ctx, "ibs_op", "zen4_ibs_extensions", "0"), 0);
	decode_vals("ibs_op", ctx, buf, len, v);
	ck_assert_int_eq(present_of(d, v, "l3_miss_only"), 0);
	pm_raw_ctx_free(ctx);

	/* erratum 1293: SwPf set on family 19h model < 10h hides L2Miss, open reqs and DATA2 */
	regs[0] = ctl;
	regs[4] = 1ULL << 21 | 1ULL << 20;
	len = ibs_payload(buf, 0, regs, 8, false);
	ctx = ibs_ctx(false, false, "AuthenticAMD,25,1,1");
	decode_vals("ibs_op", ctx, buf, len, v);
	ck_assert_int_eq(present_of(d, v, "l2_miss"), 0);
	ck_assert_int_eq(present_of(d, v, "op_data2"), 0);
	ck_assert_int_eq(present_of(d, v, "data_src"), 0);
	ck_assert_uint_eq(val_of(d, v, "sw_pf"), 1);
	pm_raw_ctx_free(ctx);

	/* 7 registers (no BP_IBSTGT_RIP); not-valid sample */
	regs[2] = 1ULL << 37;
	len = ibs_payload(buf, 0, regs, 7, false);
	decode_vals("ibs_op", NULL, buf, len, v);
	ck_assert_int_eq(present_of(d, v, "br_target"), 0);
	regs[0] = ctl & ~(1ULL << 18);
	len = ibs_payload(buf, 0, regs, 8, pm__host_big_endian());
	decode_vals("ibs_op", NULL, buf, len, v);
	ck_assert_uint_eq(val_of(d, v, "valid"), 0);
	ck_assert_int_eq(present_of(d, v, "op_rip"), 0);
	ck_assert_int_eq(present_of(d, v, "op_data3"), 0);

	/* JSON */
	char out[4096];
	regs[0] = ctl;
	regs[2] = 0;
	regs[4] = 1ULL << 17;
	len = ibs_payload(buf, 0, regs, 8, pm__host_big_endian());
	ck_assert_int_gt(pm_raw_format_json(d, NULL, buf, len, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"op_rip\":\"0x401000\""));
	ck_assert_ptr_nonnull(strstr(out, "\"dc_linaddr\":\"0x7ffe0000\""));
	ck_assert_ptr_null(strstr(out, "dc_physaddr"));
	ck_assert_ptr_nonnull(strstr(out, "\"cnt_ctl\":\"uOps\""));
	ck_assert_int_gt(pm_raw_format_text(d, NULL, buf, len, "", out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "IBS_OP_RIP"));
	ck_assert_ptr_nonnull(strstr(out, "IBS_DC_LINADDR"));
}
END_TEST

	/* The driver's event table (seed: ev67_profileme_sl1, __hw_perf_event_init). */
START_TEST(test_event_map)
{
	static const struct {
		uint32_t type;
		uint64_t config;
		unsigned precise;
		int rc, ev, c0, c1;
	} t[] = {
		/* perf's default cycles:P: hardware cycles + precise_ip -> event 1, retire delay */
		{ PM_TYPE_HARDWARE, 0, 3, 1, 1, PM_PROFILEME_COUNTS_CYCLES, PM_PROFILEME_COUNTS_RETIRE_DELAY },
		{ PM_TYPE_HARDWARE, 1, 1, 1, 2, PM_PROFILEME_COUNTS_INSTRUCTIONS, PM_PROFILEME_COUNTS_CYCLES },
		{ PM_TYPE_HARDWARE, 3, 2, 1, 3, PM_PROFILEME_COUNTS_INSTRUCTIONS, PM_PROFILEME_COUNTS_BCACHE_MISSES },
		{ PM_TYPE_HARDWARE, 2, 1, -PM_ERR_PROFILEME, 0, 0, 0 }, /* cache-references: unsupported */
		{ PM_TYPE_HARDWARE, 4, 1, -PM_ERR_PROFILEME, 0, 0, 0 }, /* branches */
		{ PM_TYPE_HARDWARE, 0, 0, 0, 0, 0, 0 },                 /* plain cycles: aggregate mode */
		{ PM_TYPE_RAW, 0x101, 0, 1, 1, PM_PROFILEME_COUNTS_CYCLES, PM_PROFILEME_COUNTS_RETIRE_DELAY },
		{ PM_TYPE_RAW, 0x102, 0, 1, 2, PM_PROFILEME_COUNTS_INSTRUCTIONS, PM_PROFILEME_COUNTS_CYCLES },
		{ PM_TYPE_RAW, 0x103, 0, 1, 3, PM_PROFILEME_COUNTS_INSTRUCTIONS, PM_PROFILEME_COUNTS_BCACHE_MISSES },
		{ PM_TYPE_RAW, 0x104, 0, 1, 4, PM_PROFILEME_COUNTS_CYCLES, PM_PROFILEME_COUNTS_MBOX_REPLAYS },
		{ PM_TYPE_RAW, 0x004, 2, 1, 4, PM_PROFILEME_COUNTS_CYCLES, PM_PROFILEME_COUNTS_MBOX_REPLAYS },
		{ PM_TYPE_RAW, 0x100, 0, -PM_ERR_PROFILEME, 0, 0, 0 },  /* event 0: not mapped */
		{ PM_TYPE_RAW, 0x105, 0, -PM_ERR_PROFILEME, 0, 0, 0 },  /* event 5 */
		{ PM_TYPE_RAW, 0x1ff, 0, -PM_ERR_PROFILEME, 0, 0, 0 },
		{ PM_TYPE_RAW, 0x301, 0, -PM_ERR_PROFILEME, 0, 0, 0 },  /* bit 9 */
		{ PM_TYPE_RAW, 0x0, 1, -PM_ERR_PROFILEME, 0, 0, 0 },    /* precise, event 0 */
		{ PM_TYPE_RAW, 0x2, 0, 0, 0, 0, 0 },                    /* aggregate mode */
		{ 1, 0x100, 1, 0, 0, 0, 0 },                            /* software: never */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pm_attr a;
		int ev = -1, c0 = -1, c1 = -1;

		pm_attr_init(&a);
		a.type = t[i].type;
		a.config = t[i].config;
		a.flags |= (uint64_t)t[i].precise << PM_ATTR_PRECISE_IP_SHIFT;
		a.sample_period = 1000;
		ck_assert_msg(pm_profileme_event_map(&a, &ev, &c0, &c1) == t[i].rc, "case %zu: rc", i);
		if (t[i].rc == 1) {
			ck_assert_int_eq(ev, t[i].ev);
			ck_assert_int_eq(c0, t[i].c0);
			ck_assert_int_eq(c1, t[i].c1);
		} else {
			ck_assert_int_eq(ev, -1);
		}
		if (t[i].rc < 0)
			ck_assert_ptr_nonnull(strstr(pm_errmsg(), t[i].precise && !(t[i].config & 0x100) ?
								   "precise_ip" : "config bit 8"));
	}
	ck_assert_int_eq(pm_profileme_event_map(NULL, NULL, NULL, NULL), -EINVAL);
}
END_TEST

/* IbsOpRip when valid (RipInvalid clear), else the sample ip, inexact. */
START_TEST(test_ibs_attribute)
{
	const pm_raw_decoder *op = pm_raw_decoder_find("ibs_op"), *fetch = pm_raw_decoder_find("ibs_fetch");
	const uint64_t rip = 0x401234ULL, ip = 0x401234ULL, other = 0x7f00dead0000ULL;
	uint64_t ctl = 1ULL << 17 | 1ULL << 18; /* En, Val */
	uint64_t regs[8] = { ctl, rip, 0, 0, 0, 0, 0, 0 };
	uint8_t buf[4 + 8 * 8 + 8];
	struct pm_ibs_attribution a = { .sz = sizeof(a) };
	pm_raw_ctx *ctx;

	for (int be = 0; be < 2; be++) {
		ctx = ibs_ctx(be, false, NULL);
		regs[2] = 0; /* IBS_OP_DATA: RipInvalid clear */
		size_t n = ibs_payload(buf, 0, regs, 8, be);
		ck_assert_int_eq(pm_ibs_attribute(op, ctx, buf, n, ip, &a), 0);
		ck_assert_int_eq(a.kind, PM_IBS_KIND_OP);
		ck_assert_int_eq(a.valid, 1);
		ck_assert_int_eq(a.exact, 1);
		ck_assert_int_eq(a.ip_differs, 0);
		ck_assert_uint_eq(a.addr, rip);
		ck_assert_uint_eq(a.tagged, rip);
		/* the recording's ip disagrees: IbsOpRip is trusted, counted */
		ck_assert_int_eq(pm_ibs_attribute(op, ctx, buf, n, other, &a), 0);
		ck_assert_uint_eq(a.addr, rip);
		ck_assert_int_eq(a.ip_differs, 1);
		ck_assert_uint_eq(a.ip, other);
		/* RipInvalid (IBS_OP_DATA[38]): the sample ip, inexact */
		regs[2] = 1ULL << 38;
		n = ibs_payload(buf, 0, regs, 8, be);
		ck_assert_int_eq(pm_ibs_attribute(op, ctx, buf, n, other, &a), 0);
		ck_assert_int_eq(a.exact, 0);
		ck_assert_int_eq(a.ip_differs, 0);
		ck_assert_uint_eq(a.addr, other);
		ck_assert_uint_eq(a.tagged, 0);
		/* not valid (no Val): inexact */
		regs[0] = 1ULL << 17;
		regs[2] = 0;
		n = ibs_payload(buf, 0, regs, 8, be);
		ck_assert_int_eq(pm_ibs_attribute(op, ctx, buf, n, other, &a), 0);
		ck_assert_int_eq(a.valid, 0);
		ck_assert_int_eq(a.exact, 0);
		ck_assert_uint_eq(a.addr, other);
		regs[0] = ctl;
		/* only the control register and the RIP: no IBS_OP_DATA, RipInvalid unknown */
		n = ibs_payload(buf, 0, regs, 2, be);
		ck_assert_int_eq(pm_ibs_attribute(op, ctx, buf, n, other, &a), 0);
		ck_assert_int_eq(a.exact, 0);
		/* too short */
		ck_assert_int_eq(pm_ibs_attribute(op, ctx, buf, 8, ip, &a), -PM_ERR_TRUNCATED);
		/* fetch: IbsFetchLinAd when valid (En [48], Val [49]) */
		{
			uint64_t f[3] = { 1ULL << 48 | 1ULL << 49, 0x7f0012345000ULL, 0 };

			n = ibs_payload(buf, 0, f, 3, be);
			ck_assert_int_eq(pm_ibs_attribute(fetch, ctx, buf, n, ip, &a), 0);
			ck_assert_int_eq(a.kind, PM_IBS_KIND_FETCH);
			ck_assert_int_eq(a.exact, 1);
			ck_assert_uint_eq(a.addr, 0x7f0012345000ULL);
			ck_assert_int_eq(a.ip_differs, 1);
			f[0] = 1ULL << 48;
			n = ibs_payload(buf, 0, f, 3, be);
			ck_assert_int_eq(pm_ibs_attribute(fetch, ctx, buf, n, ip, &a), 0);
			ck_assert_int_eq(a.exact, 0);
			ck_assert_uint_eq(a.addr, ip);
		}
		pm_raw_ctx_free(ctx);
	}
	ck_assert_int_eq(pm_ibs_attribute(pm_raw_decoder_find("alpha_profileme"), NULL, buf, 28, ip, &a),
			 -PM_ERR_NO_DECODER);
	ck_assert_int_eq(pm_ibs_attribute(NULL, NULL, buf, 28, ip, &a), -EINVAL);
	ck_assert_int_eq(pm_ibs_attribute(op, NULL, buf, 28, ip, NULL), -EINVAL);
	a.sz = 1;
	ck_assert_int_eq(pm_ibs_attribute(op, NULL, buf, 28, ip, &a), -PM_ERR_STRUCT_SIZE);
}
END_TEST

static Suite *raw_suite(void)
{
	Suite *s = suite_create("raw");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_field_boundaries);
	tcase_add_test(tc, test_bits_outside_fields_ignored);
	tcase_add_test(tc, test_trap_names);
	tcase_add_test(tc, test_redirects);
	tcase_add_test(tc, test_killed_stale_and_mis);
	tcase_add_test(tc, test_mode_and_counts);
	tcase_add_test(tc, test_versions_and_short);
	tcase_add_test(tc, test_alignment);
	tcase_add_test(tc, test_byte_layout_is_le);
	tcase_add_test(tc, test_struct_sz);
	tcase_add_test(tc, test_ips);
	tcase_add_test(tc, test_attribute);
	tcase_add_test(tc, test_ibs_attribute);
	tcase_add_test(tc, test_event_map);
	tcase_add_test(tc, test_registry);
	tcase_add_test(tc, test_generic_profileme_be_context);
	tcase_add_test(tc, test_value_stride);
	tcase_add_test(tc, test_json_text);
	tcase_add_test(tc, test_select);
	tcase_add_test(tc, test_ibs_fetch);
	tcase_add_test(tc, test_ibs_op);
	suite_add_tcase(s, tc);
	return s;
}

PM_TEST_MAIN(raw_suite)
