/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * Alpha ProfileMe PERF_SAMPLE_RAW payload (EV67/EV68/EV7 `cpu` PMU).
 *
 * Payload (little endian, packed): u32 version; u64 pmpc; u64 i_stat;
 * u64 pctr_ctl (28 bytes in version 1); later versions append fields.
 * Field positions are from the EV67/EV68 Hardware Reference Manuals as
 * documented in the perf "Decode ProfileMe raw samples" patch:
 *   I_STAT:   OVR 32:30, ICM 33, TRAP_TYPE 37:34, LSO 38, TRP 39, MIS 40
 *   PCTR_CTL: TAK 0, VAL 1, SL1 3:2, SL0 4, PCTR1 25:6, KILLED 26,
 *             STALLED 27, PCTR0 47:28
 *   PMPC:     bit 0 PALmode; bits 63:2 the PC
 */
#include <inttypes.h>

#include "raw_int.h"

static const char *const trap_names[PM_PROFILEME_TRAP_COUNT] = {
	[PM_PROFILEME_TRAP_NONE] = "none",
	[PM_PROFILEME_TRAP_REPLAY] = "replay",
	[PM_PROFILEME_TRAP_DTB_DOUBLE_3] = "DTB double miss (3 level)",
	[PM_PROFILEME_TRAP_DTB_DOUBLE_4] = "DTB double miss (4 level)",
	[PM_PROFILEME_TRAP_FP_DISABLED] = "FP disabled",
	[PM_PROFILEME_TRAP_UNALIGNED] = "unaligned",
	[PM_PROFILEME_TRAP_DTB_SINGLE] = "DTB single miss",
	[PM_PROFILEME_TRAP_DSTREAM_FAULT] = "Dstream fault",
	[PM_PROFILEME_TRAP_OPCDEC] = "OPCDEC",
	[PM_PROFILEME_TRAP_MACHINE_CHECK] = "machine check",
	[PM_PROFILEME_TRAP_ARITHMETIC] = "arithmetic",
	[PM_PROFILEME_TRAP_MT_FPCR] = "MT_FPCR",
	[PM_PROFILEME_TRAP_RESET] = "reset",
	[PM_PROFILEME_TRAP_OTHER] = "other (see PMPC)",
	[PM_PROFILEME_TRAP_ISTREAM_ACV] = "Istream access violation",
	[PM_PROFILEME_TRAP_ITB_MISS] = "ITB miss",
	[PM_PROFILEME_TRAP_INTERRUPT] = "interrupt",
};

/* I_STAT TRAP_TYPE (0..15) -> trap code; unnamed types are OTHER. */
static const uint8_t trap_of_type[16] = {
	PM_PROFILEME_TRAP_REPLAY,        /* 0 */
	PM_PROFILEME_TRAP_OTHER,         /* 1 */
	PM_PROFILEME_TRAP_DTB_DOUBLE_3,  /* 2 */
	PM_PROFILEME_TRAP_DTB_DOUBLE_4,  /* 3 */
	PM_PROFILEME_TRAP_FP_DISABLED,   /* 4 */
	PM_PROFILEME_TRAP_UNALIGNED,     /* 5 */
	PM_PROFILEME_TRAP_DTB_SINGLE,    /* 6 */
	PM_PROFILEME_TRAP_DSTREAM_FAULT, /* 7 */
	PM_PROFILEME_TRAP_OPCDEC,        /* 8 */
	PM_PROFILEME_TRAP_OTHER,         /* 9 */
	PM_PROFILEME_TRAP_MACHINE_CHECK, /* 10 */
	PM_PROFILEME_TRAP_OTHER,         /* 11 */
	PM_PROFILEME_TRAP_ARITHMETIC,    /* 12 */
	PM_PROFILEME_TRAP_OTHER,         /* 13 */
	PM_PROFILEME_TRAP_MT_FPCR,       /* 14 */
	PM_PROFILEME_TRAP_RESET,         /* 15 */
};

static const char *const mode_names[PM_PROFILEME_MODE_COUNT] = { "user", "kernel", "PAL" };

static const char *const counts_names[PM_PROFILEME_COUNTS_COUNT] = {
	"cycles", "instructions", "retire delay", "bcache misses", "mbox replays",
};

/* What PCTR1 counts in the window, by SL1 (0 instr/cycles, 1 cycles/retire
 * delay, 2 instr/Bcache misses, 3 cycles/Mbox replays). */
static const uint8_t pctr1_of_sl1[4] = {
	PM_PROFILEME_COUNTS_CYCLES,
	PM_PROFILEME_COUNTS_RETIRE_DELAY,
	PM_PROFILEME_COUNTS_BCACHE_MISSES,
	PM_PROFILEME_COUNTS_MBOX_REPLAYS,
};

const char *pm_profileme_trap_name(int code)
{
	return code >= 0 && code < PM_PROFILEME_TRAP_COUNT ? trap_names[code] : NULL;
}

const char *pm_profileme_mode_name(int code)
{
	return code >= 0 && code < PM_PROFILEME_MODE_COUNT ? mode_names[code] : NULL;
}

const char *pm_profileme_counts_name(int code)
{
	return code >= 0 && code < PM_PROFILEME_COUNTS_COUNT ? counts_names[code] : NULL;
}

/* The trap code of a sample, from its three registers. */
static int trap_of(uint64_t pmpc, uint64_t is, uint64_t ctl)
{
	/* TRP (and MIS, TRAP_TYPE with it) is stale for an instruction killed
	 * before it was mapped. */
	bool trapped = pm__bits(is, 39, 39) && !pm__bits(ctl, 26, 26);

	/* Redirect traps leave TRAP_TYPE alone; the PALcode entry names them. */
	if (pmpc & 1) {
		switch (pmpc & 0x7fff) {
		case 0x481: return PM_PROFILEME_TRAP_ISTREAM_ACV;
		case 0x581: return PM_PROFILEME_TRAP_ITB_MISS;
		case 0x681: return PM_PROFILEME_TRAP_INTERRUPT;
		default: break;
		}
	}
	if (!trapped || pm__bits(is, 40, 40))
		return PM_PROFILEME_TRAP_NONE;
	return trap_of_type[pm__bits(is, 37, 34)];
}

/* Decode into a full struct of this library's size. */
static int decode_full(const uint8_t *p, size_t len, struct pm_profileme_sample *s)
{
	uint32_t version;
	uint64_t pmpc, is, ctl;

	if (len < 4)
		return pm__err(PM_ERR_NOT_PROFILEME,
			       "raw payload of %zu bytes is not a ProfileMe sample (no version field)", len);
	version = pm__ld32(p, false);
	if (version == 0)
		return pm__err(PM_ERR_NOT_PROFILEME,
			       "raw payload has version 0: not a ProfileMe sample");
	if (len < PM_PROFILEME_V1_SIZE)
		return pm__err(PM_ERR_NOT_PROFILEME,
			       "raw payload of %zu bytes is shorter than a ProfileMe sample (%d bytes)",
			       len, PM_PROFILEME_V1_SIZE);

	pmpc = pm__ld64(p + 4, false);
	is = pm__ld64(p + 12, false);
	ctl = pm__ld64(p + 20, false);

	memset(s, 0, sizeof(*s));
	s->sz = sizeof(*s);
	s->version = version;
	s->pmpc = pmpc;
	s->i_stat = is;
	s->pctr_ctl = ctl;

	s->ovr = (uint32_t)pm__bits(is, 32, 30);
	s->icm = (uint32_t)pm__bits(is, 33, 33);
	s->trap_type = (uint32_t)pm__bits(is, 37, 34);
	s->lso = (uint32_t)pm__bits(is, 38, 38);
	s->trp = (uint32_t)pm__bits(is, 39, 39);
	s->mis = (uint32_t)pm__bits(is, 40, 40);

	s->tak = (uint32_t)pm__bits(ctl, 0, 0);
	s->val = (uint32_t)pm__bits(ctl, 1, 1);
	s->sl1 = (uint32_t)pm__bits(ctl, 3, 2);
	s->sl0 = (uint32_t)pm__bits(ctl, 4, 4);
	s->pctr1 = (uint32_t)pm__bits(ctl, 25, 6);
	s->killed = (uint32_t)pm__bits(ctl, 26, 26);
	s->stalled = (uint32_t)pm__bits(ctl, 27, 27);
	s->pctr0 = (uint32_t)pm__bits(ctl, 47, 28);

	s->pal = (uint32_t)(pmpc & 1);
	s->pc = pmpc & ~3ULL;
	s->mode = s->pal ? PM_PROFILEME_MODE_PAL
			 : (pmpc >> 63) ? PM_PROFILEME_MODE_KERNEL : PM_PROFILEME_MODE_USER;

	/* TRP (and MIS, TRAP_TYPE with it) is stale for an instruction killed
	 * before it was mapped. */
	s->trapped = s->trp && !s->killed;
	s->mispredicted = s->trapped && s->mis;

	s->trap = trap_of(pmpc, is, ctl);

	s->pctr0_counts = (s->sl1 & 1) ? PM_PROFILEME_COUNTS_CYCLES : PM_PROFILEME_COUNTS_INSTRUCTIONS;
	s->pctr1_counts = pctr1_of_sl1[s->sl1];

	if (version > PM_PROFILEME_VERSION && len > PM_PROFILEME_V1_SIZE) {
		s->extra = p + PM_PROFILEME_V1_SIZE;
		s->extra_len = len - PM_PROFILEME_V1_SIZE;
	}
	return 0;
}

int pm_profileme_decode(const void *payload, size_t len, struct pm_profileme_sample *out)
{
	struct pm_profileme_sample s;
	int rc;

	if (!payload || !out)
		return pm__err(EINVAL, "pm_profileme_decode: NULL %s", payload ? "out" : "payload");
	rc = PM__SZ_VALID(out, pm_profileme_sample, PM_PROFILEME_SAMPLE_SZ_V1);
	if (rc)
		return rc;
	rc = decode_full(payload, len, &s);
	if (rc < 0)
		return rc;
	pm__struct_copy_out(out, out->sz, &s, sizeof(s));
	return 0;
}

int pm_profileme_ips(const struct pm_profileme_sample *s, uint64_t sample_ip, uint64_t *pc, uint64_t *ip)
{
	uint64_t p;

	if (!s)
		return pm__err(EINVAL, "pm_profileme_ips: NULL sample");
	/* Read through sz: an old caller's struct may end before pmpc. */
	if (!PM__SZ_HAS(s, pm_profileme_sample, pmpc))
		return pm__err(PM_ERR_STRUCT_SIZE, "struct pm_profileme_sample: size %zu has no pmpc", s->sz);
	p = s->pmpc & ~3ULL;
	if (pc)
		*pc = p;
	if (ip)
		*ip = sample_ip;
	return p != sample_ip;
}

/* ---- which events the driver samples in ProfileMe mode ---- */

/* By event code 1..4 (EV67_CYCLES, _INSTRUCTIONS, _BCACHEMISS, _MBOXREPLAY):
 * the SL1 the driver programs, as what PCTR0 and PCTR1 count. */
static const uint8_t event_pctr[5][2] = {
	{ 0, 0 },
	{ PM_PROFILEME_COUNTS_CYCLES, PM_PROFILEME_COUNTS_RETIRE_DELAY },
	{ PM_PROFILEME_COUNTS_INSTRUCTIONS, PM_PROFILEME_COUNTS_CYCLES },
	{ PM_PROFILEME_COUNTS_INSTRUCTIONS, PM_PROFILEME_COUNTS_BCACHE_MISSES },
	{ PM_PROFILEME_COUNTS_CYCLES, PM_PROFILEME_COUNTS_MBOX_REPLAYS },
};

int pm_profileme_event_map(const struct pm_attr *attr, int *event, int *pctr0_counts, int *pctr1_counts)
{
	bool precise, bit;
	int ev;

	if (!attr)
		return pm__err(EINVAL, "pm_profileme_event_map: NULL attr");
	precise = PM_ATTR_PRECISE_IP(attr) > 0;
	if (attr->type == PM_TYPE_RAW) {
		bit = (attr->config & PM_PROFILEME_CONFIG_BIT) != 0;
		if (!bit && !precise)
			return 0;
		if (attr->config & ~0x1ffULL)
			return pm__err(PM_ERR_PROFILEME,
				       "ProfileMe (%s): config %#" PRIx64 " sets bits other than 0-8, which "
				       "the Alpha driver rejects",
				       bit ? "config bit 8" : "precise_ip", attr->config);
		ev = (int)(attr->config & 0xff);
		if (ev < 1 || ev > 4)
			return pm__err(PM_ERR_PROFILEME,
				       "ProfileMe (%s): event code %d is not one the Alpha driver maps "
				       "(1 cycles, 2 instructions, 3 Bcache misses, 4 Mbox replays)",
				       bit ? "config bit 8" : "precise_ip", ev);
	} else if (attr->type == PM_TYPE_HARDWARE) {
		if (!precise)
			return 0;
		switch (attr->config) {
		case 0: ev = 1; break; /* cycles */
		case 1: ev = 2; break; /* instructions */
		case 3: ev = 3; break; /* cache-misses: Bcache misses */
		default:
			return pm__err(PM_ERR_PROFILEME,
				       "ProfileMe (precise_ip): hardware event %" PRIu64 " is not one the "
				       "Alpha driver maps (cycles, instructions, cache-misses)",
				       attr->config);
		}
	} else {
		return 0;
	}
	if (event)
		*event = ev;
	if (pctr0_counts)
		*pctr0_counts = event_pctr[ev][0];
	if (pctr1_counts)
		*pctr1_counts = event_pctr[ev][1];
	return 1;
}

/* ---- attribution: where the kernel put the sample, and why ---- */

static const char *const charge_names[PM_PROFILEME_CHARGE_COUNT] = {
	[PM_PROFILEME_CHARGE_PC] = "pc",
	[PM_PROFILEME_CHARGE_REDIRECT] = "redirect",
	[PM_PROFILEME_CHARGE_PALCODE] = "PALcode",
	[PM_PROFILEME_CHARGE_IP] = "ip",
};

const char *pm_profileme_charge_name(int code)
{
	return code >= 0 && code < PM_PROFILEME_CHARGE_COUNT ? charge_names[code] : NULL;
}

/* Alpha kernel addresses (KSEG, vmalloc) have bit 63 set; user ones do not. */
static int addr_mode(uint64_t a)
{
	return (a >> 63) ? PM_PROFILEME_MODE_KERNEL : PM_PROFILEME_MODE_USER;
}

int pm_profileme_attribute(const struct pm_profileme_sample *s, uint64_t sample_ip,
			   struct pm_profileme_attribution *out)
{
	struct pm_profileme_attribution a;
	uint64_t pmpc, pc;
	int pmode, imode;

	if (!s || !out)
		return pm__err(EINVAL, "pm_profileme_attribute: NULL %s", s ? "out" : "sample");
	if (PM__SZ_VALID(out, pm_profileme_attribution, PM_PROFILEME_ATTRIBUTION_SZ_V1) ||
	    PM__SZ_VALID(s, pm_profileme_sample, PM_PROFILEME_SAMPLE_SZ_V1))
		return -PM_ERR_STRUCT_SIZE;
	/* Only the registers are read (a caller's struct may be older than the
	 * derived fields); the rules are applied to them here. */
	if (s->sz < offsetof(struct pm_profileme_sample, pctr_ctl) + sizeof(s->pctr_ctl))
		return pm__err(PM_ERR_STRUCT_SIZE, "struct pm_profileme_sample: size %zu has no pctr_ctl",
			       s->sz);
	pmpc = s->pmpc;
	memset(&a, 0, sizeof(a));
	a.sz = sizeof(a);
	a.trap = trap_of(pmpc, s->i_stat, s->pctr_ctl);
	pc = pmpc & ~3ULL;
	a.pc = pc;
	a.ip = sample_ip;
	pmode = addr_mode(pc);
	imode = addr_mode(sample_ip);
	if (pmpc & 1) {
		/* A PALmode PMPC is a physical address: the kernel kept the
		 * interrupted PC, which for a redirect is the trapping instruction. */
		switch (pmpc & 0x7fff) {
		case 0x481:
		case 0x581:
		case 0x681:
			a.charge = PM_PROFILEME_CHARGE_REDIRECT;
			a.addr = sample_ip;
			a.mode = imode;
			break;
		default:
			a.charge = PM_PROFILEME_CHARGE_PALCODE;
			a.addr = pc;
			a.mode = PM_PROFILEME_MODE_PAL;
			break;
		}
	} else if (pmode == PM_PROFILEME_MODE_USER && imode == PM_PROFILEME_MODE_KERNEL) {
		/* A user PMPC sampled in a kernel thread: no user frame, so the
		 * kernel kept the interrupted (kernel) PC. */
		a.charge = PM_PROFILEME_CHARGE_IP;
		a.addr = sample_ip;
		a.mode = imode;
	} else {
		a.charge = PM_PROFILEME_CHARGE_PC;
		a.addr = pc;
		a.mode = pmode;
		/* Both virtual; comparable only within one address space. */
		if (pmode == imode) {
			a.skid_valid = 1;
			a.skid = (int64_t)(sample_ip - pc);
		}
	}
	pm__struct_copy_out(out, out->sz, &a, sizeof(a));
	return 0;
}

/* ---- generic table ---- */

enum {
	F_VERSION, F_PMPC, F_PAL, F_PC, F_MODE, F_TRAP, F_TRAPPED, F_MISPREDICTED,
	F_I_STAT, F_OVR, F_ICM, F_TRAP_TYPE, F_LSO, F_TRP, F_MIS,
	F_PCTR_CTL, F_VAL, F_TAK, F_STALLED, F_KILLED, F_SL0, F_SL1, F_PCTR0, F_PCTR0_COUNTS,
	F_PCTR1, F_PCTR1_COUNTS, F_EXTRA, F_COUNT
};

static const struct pm__raw_field pm_fields[F_COUNT] = {
	[F_VERSION] = { "version", NULL, PM_RAW_KIND_U64, 0 },
	[F_PMPC] = { "pmpc", "PMPC", PM_RAW_KIND_HEX, PM_RAW_FIELD_REGISTER },
	[F_PAL] = { "pal", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_PC] = { "pc", NULL, PM_RAW_KIND_HEX, 0 },
	[F_MODE] = { "mode", NULL, PM_RAW_KIND_CODE, 0 },
	[F_TRAP] = { "trap", NULL, PM_RAW_KIND_CODE, 0 },
	[F_TRAPPED] = { "trapped", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_MISPREDICTED] = { "mispredicted", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_I_STAT] = { "i_stat", "I_STAT", PM_RAW_KIND_HEX, PM_RAW_FIELD_REGISTER },
	[F_OVR] = { "ovr", NULL, PM_RAW_KIND_U64, 0 },
	[F_ICM] = { "icm", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_TRAP_TYPE] = { "trap_type", NULL, PM_RAW_KIND_U64, 0 },
	[F_LSO] = { "lso", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_TRP] = { "trp", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_MIS] = { "mis", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_PCTR_CTL] = { "pctr_ctl", "PCTR_CTL", PM_RAW_KIND_HEX, PM_RAW_FIELD_REGISTER },
	[F_VAL] = { "val", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_TAK] = { "tak", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_STALLED] = { "stalled", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_KILLED] = { "killed", NULL, PM_RAW_KIND_BOOL, 0 },
	[F_SL0] = { "sl0", NULL, PM_RAW_KIND_U64, 0 },
	[F_SL1] = { "sl1", NULL, PM_RAW_KIND_U64, 0 },
	[F_PCTR0] = { "pctr0", NULL, PM_RAW_KIND_U64, 0 },
	[F_PCTR0_COUNTS] = { "pctr0_counts", NULL, PM_RAW_KIND_CODE, 0 },
	[F_PCTR1] = { "pctr1", NULL, PM_RAW_KIND_U64, 0 },
	[F_PCTR1_COUNTS] = { "pctr1_counts", NULL, PM_RAW_KIND_CODE, 0 },
	[F_EXTRA] = { "extra", NULL, PM_RAW_KIND_BYTES, 0 },
};

static int pm_decode_generic(const struct pm__raw_opts *o, const uint8_t *p, size_t len,
			     struct pm__raw_out *out)
{
	struct pm_profileme_sample s;
	int rc;

	(void)o;
	memset(&s, 0, sizeof(s));
	rc = decode_full(p, len, &s);
	if (rc < 0)
		return rc;
	out->v[F_VERSION] = s.version;
	out->v[F_PMPC] = s.pmpc;
	out->v[F_PAL] = s.pal;
	out->v[F_PC] = s.pc;
	out->v[F_MODE] = (uint64_t)s.mode;
	out->v[F_TRAP] = (uint64_t)s.trap;
	out->v[F_TRAPPED] = (uint64_t)s.trapped;
	out->v[F_MISPREDICTED] = (uint64_t)s.mispredicted;
	out->v[F_I_STAT] = s.i_stat;
	out->v[F_OVR] = s.ovr;
	out->v[F_ICM] = s.icm;
	out->v[F_TRAP_TYPE] = s.trap_type;
	out->v[F_LSO] = s.lso;
	out->v[F_TRP] = s.trp;
	out->v[F_MIS] = s.mis;
	out->v[F_PCTR_CTL] = s.pctr_ctl;
	out->v[F_VAL] = s.val;
	out->v[F_TAK] = s.tak;
	out->v[F_STALLED] = s.stalled;
	out->v[F_KILLED] = s.killed;
	out->v[F_SL0] = s.sl0;
	out->v[F_SL1] = s.sl1;
	out->v[F_PCTR0] = s.pctr0;
	out->v[F_PCTR0_COUNTS] = (uint64_t)s.pctr0_counts;
	out->v[F_PCTR1] = s.pctr1;
	out->v[F_PCTR1_COUNTS] = (uint64_t)s.pctr1_counts;
	for (int i = 0; i < F_EXTRA; i++)
		out->present[i] = 1;
	if (s.extra) {
		out->v[F_EXTRA] = s.extra_len;
		out->bytes = s.extra;
		out->present[F_EXTRA] = 1;
	}
	return 0;
}

static const char *pm_code_name(const struct pm__raw_opts *o, size_t field, uint64_t code)
{
	(void)o;
	if (code > 64)
		return NULL;
	switch (field) {
	case F_MODE: return pm_profileme_mode_name((int)code);
	case F_TRAP: return pm_profileme_trap_name((int)code);
	case F_PCTR0_COUNTS:
	case F_PCTR1_COUNTS: return pm_profileme_counts_name((int)code);
	default: return NULL;
	}
}

const struct pm_raw_decoder pm__raw_alpha_profileme = {
	.name = "alpha_profileme",
	.key = "profileme",
	.fields = pm_fields,
	.nfields = F_COUNT,
	.decode = pm_decode_generic,
	.code_name = pm_code_name,
};
