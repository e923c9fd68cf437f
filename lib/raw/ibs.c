/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * AMD IBS fetch and op PERF_SAMPLE_RAW payloads.
 *
 * Payload: u32 caps, then the IBS MSR values as u64, in the recording's
 * byte order.  Fetch: IBS_FETCH_CTL (MSRC001_1030), IBS_FETCH_LINADDR
 * (MSRC001_1031), IBS_FETCH_PHYSADDR (MSRC001_1032), then IC_IBS_EXTD_CTL
 * (MSRC001_103C) when the CPU has it.  Op: IBS_OP_CTL (MSRC001_1033),
 * IBS_OP_RIP (1034), IBS_OP_DATA (1035), IBS_OP_DATA2 (1036), IBS_OP_DATA3
 * (1037), IBS_DC_LINADDR (1038), IBS_DC_PHYSADDR (1039), then BP_IBSTGT_RIP
 * (MSRC001_103B) when the CPU has it.  Bit positions are those of the
 * kernel's arch/x86/include/asm/amd-ibs.h (AMD PPR for family 19h model 01h
 * and the Zen 4 additions); each is cited below as REGISTER[hi:lo].
 * Validity follows perf's IBS decoder: a sample is valid when En and Val are
 * both set, and each field whose hardware validity bit is clear is absent.
 */
#include "raw_int.h"

/* ======================================================================== */
/* IBS fetch */

enum {
	FF_CAPS, FF_VALID,
	FF_FETCH_CTL, FF_FETCH_MAXCNT, FF_FETCH_CNT, FF_FETCH_LAT, FF_FETCH_EN, FF_FETCH_VAL,
	FF_FETCH_COMP, FF_IC_MISS, FF_PHY_ADDR_VALID, FF_L1TLB_PGSZ, FF_L1TLB_MISS, FF_L2TLB_MISS,
	FF_RAND_EN, FF_FETCH_L2_MISS, FF_L3_MISS_ONLY, FF_FETCH_OC_MISS, FF_FETCH_L3_MISS,
	FF_FETCH_LINADDR, FF_FETCH_PHYSADDR, FF_IC_IBS_EXTD_CTL, FF_ITLB_REFILL_LAT, FF_EXTRA,
	FF_COUNT
};

#define R(name, label) { name, label, PM_RAW_KIND_HEX, PM_RAW_FIELD_REGISTER }
#define U(name) { name, NULL, PM_RAW_KIND_U64, 0 }
#define B(name) { name, NULL, PM_RAW_KIND_BOOL, 0 }
#define C(name) { name, NULL, PM_RAW_KIND_CODE, 0 }
#define H(name) { name, NULL, PM_RAW_KIND_HEX, 0 }
#define X(name) { name, NULL, PM_RAW_KIND_BYTES, 0 }

static const struct pm__raw_field fetch_fields[FF_COUNT] = {
	[FF_CAPS] = H("caps"),
	[FF_VALID] = B("valid"),
	[FF_FETCH_CTL] = R("fetch_ctl", "IBS_FETCH_CTL"),
	[FF_FETCH_MAXCNT] = U("fetch_maxcnt"),
	[FF_FETCH_CNT] = U("fetch_cnt"),
	[FF_FETCH_LAT] = U("fetch_lat"),
	[FF_FETCH_EN] = B("fetch_en"),
	[FF_FETCH_VAL] = B("fetch_val"),
	[FF_FETCH_COMP] = B("fetch_comp"),
	[FF_IC_MISS] = B("ic_miss"),
	[FF_PHY_ADDR_VALID] = B("phy_addr_valid"),
	[FF_L1TLB_PGSZ] = C("l1tlb_pgsz"),
	[FF_L1TLB_MISS] = B("l1tlb_miss"),
	[FF_L2TLB_MISS] = B("l2tlb_miss"),
	[FF_RAND_EN] = B("rand_en"),
	[FF_FETCH_L2_MISS] = B("fetch_l2_miss"),
	[FF_L3_MISS_ONLY] = B("l3_miss_only"),
	[FF_FETCH_OC_MISS] = B("fetch_oc_miss"),
	[FF_FETCH_L3_MISS] = B("fetch_l3_miss"),
	[FF_FETCH_LINADDR] = R("fetch_linaddr", "IBS_FETCH_LINADDR"),
	[FF_FETCH_PHYSADDR] = R("fetch_physaddr", "IBS_FETCH_PHYSADDR"),
	[FF_IC_IBS_EXTD_CTL] = R("ic_ibs_extd_ctl", "IC_IBS_EXTD_CTL"),
	[FF_ITLB_REFILL_LAT] = U("itlb_refill_lat"),
	[FF_EXTRA] = X("extra"),
};

#define SET(f, val)                                                                   \
	do {                                                                          \
		out->v[f] = (val);                                                    \
		out->present[f] = 1;                                                  \
	} while (0)
#define SET_IF(cond, f, val)                                                          \
	do {                                                                          \
		if (cond)                                                             \
			SET(f, val);                                                  \
	} while (0)

/* Number of u64 registers after the u32 caps; -PM_ERR_TRUNCATED without the control register. */
static int ibs_nregs(const char *what, size_t len, size_t known, size_t *extra_off)
{
	size_t n;

	if (len < 12)
		return pm__err(PM_ERR_TRUNCATED,
			       "%s raw payload of %zu bytes has no control register (needs 12)", what, len);
	n = (len - 4) / 8;
	*extra_off = n > known ? 4 + known * 8 : len;
	return (int)PM_MIN(n, known);
}

static int fetch_decode(const struct pm__raw_opts *o, const uint8_t *p, size_t len, struct pm__raw_out *out)
{
	bool be = o->big_endian;
	size_t extra_off = len;
	int n = ibs_nregs("IBS fetch", len, 4, &extra_off);
	uint64_t ctl;
	bool valid, phys_ok;

	if (n < 0)
		return n;
	SET(FF_CAPS, pm__ld32(p, be));
	ctl = pm__ld64(p + 4, be);
	SET(FF_FETCH_CTL, ctl);
	SET(FF_FETCH_MAXCNT, pm__bits(ctl, 15, 0) << 4);  /* IBS_FETCH_CTL[15:0] IbsFetchMaxCnt, units of 16 */
	SET(FF_FETCH_CNT, pm__bits(ctl, 31, 16) << 4);    /* [31:16] IbsFetchCnt, units of 16 */
	SET(FF_FETCH_LAT, pm__bits(ctl, 47, 32));         /* [47:32] IbsFetchLat */
	SET(FF_FETCH_EN, pm__bits(ctl, 48, 48));          /* [48] IbsFetchEn */
	SET(FF_FETCH_VAL, pm__bits(ctl, 49, 49));         /* [49] IbsFetchVal */
	SET(FF_FETCH_COMP, pm__bits(ctl, 50, 50));        /* [50] IbsFetchComp */
	/* [51] IbsIcMiss: unreliable on family 19h model < 10h (erratum 1238) */
	SET_IF(!o->fam19_early, FF_IC_MISS, pm__bits(ctl, 51, 51));
	phys_ok = pm__bits(ctl, 52, 52);                  /* [52] IbsPhyAddrValid */
	SET(FF_PHY_ADDR_VALID, phys_ok);
	SET_IF(phys_ok, FF_L1TLB_PGSZ, pm__bits(ctl, 54, 53)); /* [54:53] IbsL1TlbPgSz, needs PhyAddrValid */
	SET(FF_L1TLB_MISS, pm__bits(ctl, 55, 55));        /* [55] IbsL1TlbMiss */
	SET(FF_L2TLB_MISS, pm__bits(ctl, 56, 56));        /* [56] IbsL2TlbMiss */
	SET(FF_RAND_EN, pm__bits(ctl, 57, 57));           /* [57] IbsRandEn */
	SET_IF(pm__bits(ctl, 50, 50), FF_FETCH_L2_MISS, pm__bits(ctl, 58, 58)); /* [58] IbsFetchL2Miss, needs Comp */
	if (o->zen4) {
		SET(FF_L3_MISS_ONLY, pm__bits(ctl, 59, 59));  /* [59] IbsL3MissOnly (Zen 4) */
		SET(FF_FETCH_OC_MISS, pm__bits(ctl, 60, 60)); /* [60] IbsFetchOcMiss (Zen 4) */
		SET(FF_FETCH_L3_MISS, pm__bits(ctl, 61, 61)); /* [61] IbsFetchL3Miss (Zen 4) */
	}
	valid = pm__bits(ctl, 48, 48) && pm__bits(ctl, 49, 49);
	SET(FF_VALID, valid);
	if (!valid)
		return 0; /* only the control register means anything */
	SET_IF(n >= 2, FF_FETCH_LINADDR, pm__ld64(p + 12, be));
	SET_IF(n >= 3 && phys_ok, FF_FETCH_PHYSADDR, pm__ld64(p + 20, be));
	if (n >= 4) {
		uint64_t ext = pm__ld64(p + 28, be);
		SET(FF_IC_IBS_EXTD_CTL, ext);
		SET(FF_ITLB_REFILL_LAT, pm__bits(ext, 15, 0)); /* IC_IBS_EXTD_CTL[15:0] IbsItlbRefillLat */
	}
	if (extra_off < len) {
		SET(FF_EXTRA, len - extra_off);
		out->bytes = p + extra_off;
	}
	return 0;
}

static const char *const pgsz_names[4] = { "4KB", "2MB", "1GB", "RESERVED" };
/* Erratum 1347 (family 19h model < 10h): a different page size table. */
static const char *const pgsz_names_1347[4] = { "4KB", "16KB", "2MB", "1GB" };

static const char *fetch_code_name(const struct pm__raw_opts *o, size_t field, uint64_t code)
{
	if (field == FF_L1TLB_PGSZ && code < 4)
		return (o->fam19_early ? pgsz_names_1347 : pgsz_names)[code];
	return NULL;
}

const struct pm_raw_decoder pm__raw_ibs_fetch = {
	.name = "ibs_fetch",
	.key = "ibs_fetch",
	.fields = fetch_fields,
	.nfields = FF_COUNT,
	.decode = fetch_decode,
	.code_name = fetch_code_name,
};

/* ======================================================================== */
/* IBS op */

enum {
	OF_CAPS, OF_VALID,
	OF_OP_CTL, OF_OPMAXCNT, OF_L3_MISS_ONLY, OF_OP_EN, OF_OP_VAL, OF_CNT_CTL, OF_OPCURCNT,
	OF_LDLAT_THRSH, OF_LDLAT_EN,
	OF_OP_RIP,
	OF_OP_DATA, OF_COMP_TO_RET_CTR, OF_TAG_TO_RET_CTR, OF_OP_RETURN, OF_OP_BRN_TAKEN,
	OF_OP_BRN_MISP, OF_OP_BRN_RET, OF_OP_RIP_INVALID, OF_OP_BRN_FUSE, OF_OP_MICROCODE,
	OF_OP_DATA2, OF_DATA_SRC, OF_RMT_NODE, OF_CACHE_HIT_ST, OF_STRM_ST, OF_RMT_SOCKET,
	OF_OP_DATA3, OF_LD_OP, OF_ST_OP, OF_DC_L1TLB_MISS, OF_DC_L2TLB_MISS, OF_DC_L1TLB_HIT_2M,
	OF_DC_L1TLB_HIT_1G, OF_DC_L2TLB_HIT_2M, OF_DC_MISS, OF_DC_MIS_ACC, OF_DC_WC_MEM_ACC,
	OF_DC_UC_MEM_ACC, OF_DC_LOCKED_OP, OF_DC_MISS_NO_MAB_ALLOC, OF_DC_LIN_ADDR_VALID,
	OF_DC_PHY_ADDR_VALID, OF_DC_L2_TLB_HIT_1G, OF_L2_MISS, OF_SW_PF, OF_OP_MEM_WIDTH,
	OF_OP_DC_MISS_OPEN_MEM_REQS, OF_DC_MISS_LAT, OF_TLB_REFILL_LAT,
	OF_DC_LINADDR, OF_DC_PHYSADDR, OF_BR_TARGET, OF_EXTRA,
	OF_COUNT
};

static const struct pm__raw_field op_fields[OF_COUNT] = {
	[OF_CAPS] = H("caps"),
	[OF_VALID] = B("valid"),
	[OF_OP_CTL] = R("op_ctl", "IBS_OP_CTL"),
	[OF_OPMAXCNT] = U("opmaxcnt"),
	[OF_L3_MISS_ONLY] = B("l3_miss_only"),
	[OF_OP_EN] = B("op_en"),
	[OF_OP_VAL] = B("op_val"),
	[OF_CNT_CTL] = C("cnt_ctl"),
	[OF_OPCURCNT] = U("opcurcnt"),
	[OF_LDLAT_THRSH] = U("ldlat_thrsh"),
	[OF_LDLAT_EN] = B("ldlat_en"),
	[OF_OP_RIP] = R("op_rip", "IBS_OP_RIP"),
	[OF_OP_DATA] = R("op_data", "IBS_OP_DATA"),
	[OF_COMP_TO_RET_CTR] = U("comp_to_ret_ctr"),
	[OF_TAG_TO_RET_CTR] = U("tag_to_ret_ctr"),
	[OF_OP_RETURN] = B("op_return"),
	[OF_OP_BRN_TAKEN] = B("op_brn_taken"),
	[OF_OP_BRN_MISP] = B("op_brn_misp"),
	[OF_OP_BRN_RET] = B("op_brn_ret"),
	[OF_OP_RIP_INVALID] = B("op_rip_invalid"),
	[OF_OP_BRN_FUSE] = B("op_brn_fuse"),
	[OF_OP_MICROCODE] = B("op_microcode"),
	[OF_OP_DATA2] = R("op_data2", "IBS_OP_DATA2"),
	[OF_DATA_SRC] = C("data_src"),
	[OF_RMT_NODE] = B("rmt_node"),
	[OF_CACHE_HIT_ST] = C("cache_hit_st"),
	[OF_STRM_ST] = B("strm_st"),
	[OF_RMT_SOCKET] = B("rmt_socket"),
	[OF_OP_DATA3] = R("op_data3", "IBS_OP_DATA3"),
	[OF_LD_OP] = B("ld_op"),
	[OF_ST_OP] = B("st_op"),
	[OF_DC_L1TLB_MISS] = B("dc_l1tlb_miss"),
	[OF_DC_L2TLB_MISS] = B("dc_l2tlb_miss"),
	[OF_DC_L1TLB_HIT_2M] = B("dc_l1tlb_hit_2m"),
	[OF_DC_L1TLB_HIT_1G] = B("dc_l1tlb_hit_1g"),
	[OF_DC_L2TLB_HIT_2M] = B("dc_l2tlb_hit_2m"),
	[OF_DC_MISS] = B("dc_miss"),
	[OF_DC_MIS_ACC] = B("dc_mis_acc"),
	[OF_DC_WC_MEM_ACC] = B("dc_wc_mem_acc"),
	[OF_DC_UC_MEM_ACC] = B("dc_uc_mem_acc"),
	[OF_DC_LOCKED_OP] = B("dc_locked_op"),
	[OF_DC_MISS_NO_MAB_ALLOC] = B("dc_miss_no_mab_alloc"),
	[OF_DC_LIN_ADDR_VALID] = B("dc_lin_addr_valid"),
	[OF_DC_PHY_ADDR_VALID] = B("dc_phy_addr_valid"),
	[OF_DC_L2_TLB_HIT_1G] = B("dc_l2_tlb_hit_1g"),
	[OF_L2_MISS] = B("l2_miss"),
	[OF_SW_PF] = B("sw_pf"),
	[OF_OP_MEM_WIDTH] = U("op_mem_width"),
	[OF_OP_DC_MISS_OPEN_MEM_REQS] = U("op_dc_miss_open_mem_reqs"),
	[OF_DC_MISS_LAT] = U("dc_miss_lat"),
	[OF_TLB_REFILL_LAT] = U("tlb_refill_lat"),
	[OF_DC_LINADDR] = R("dc_linaddr", "IBS_DC_LINADDR"),
	[OF_DC_PHYSADDR] = R("dc_physaddr", "IBS_DC_PHYSADDR"),
	[OF_BR_TARGET] = R("br_target", "BP_IBSTGT_RIP"),
	[OF_EXTRA] = X("extra"),
};

static bool data_src_has_hit_state(const struct pm__raw_opts *o, uint64_t src)
{
	if (o->zen4)
		return src == 1 || src == 2 || src == 5;
	return src == 2;
}

static int op_decode(const struct pm__raw_opts *o, const uint8_t *p, size_t len, struct pm__raw_out *out)
{
	bool be = o->big_endian;
	size_t extra_off = len;
	int n = ibs_nregs("IBS op", len, 8, &extra_off);
	uint64_t ctl, data = 0, d2, d3 = 0;
	bool valid, brn_ret = false, erratum1293 = false;

	if (n < 0)
		return n;
	SET(OF_CAPS, pm__ld32(p, be));
	ctl = pm__ld64(p + 4, be);
	SET(OF_OP_CTL, ctl);
	/* IBS_OP_CTL[15:0] IbsOpMaxCnt and [26:20] IbsOpMaxCnt_ext (upper bits), units of 16 */
	SET(OF_OPMAXCNT, ((pm__bits(ctl, 26, 20) << 16) | pm__bits(ctl, 15, 0)) << 4);
	SET_IF(o->zen4, OF_L3_MISS_ONLY, pm__bits(ctl, 16, 16)); /* [16] IbsL3MissOnly (Zen 4) */
	SET(OF_OP_EN, pm__bits(ctl, 17, 17));     /* [17] IbsOpEn */
	SET(OF_OP_VAL, pm__bits(ctl, 18, 18));    /* [18] IbsOpVal */
	SET(OF_CNT_CTL, pm__bits(ctl, 19, 19));   /* [19] IbsOpCntCtl: 0 cycles, 1 dispatched ops */
	SET(OF_OPCURCNT, pm__bits(ctl, 58, 32));  /* [58:32] IbsOpCurCnt */
	if (o->ldlat) {
		SET(OF_LDLAT_THRSH, pm__bits(ctl, 62, 59)); /* [62:59] IbsOpLdLatThrsh (raw) */
		SET(OF_LDLAT_EN, pm__bits(ctl, 63, 63));    /* [63] IbsOpLdLatEn */
	}
	valid = pm__bits(ctl, 17, 17) && pm__bits(ctl, 18, 18);
	SET(OF_VALID, valid);
	if (!valid)
		return 0;

	if (n >= 3) {
		data = pm__ld64(p + 20, be);
		brn_ret = pm__bits(data, 37, 37);
		SET(OF_OP_DATA, data);
		SET(OF_COMP_TO_RET_CTR, pm__bits(data, 15, 0)); /* IBS_OP_DATA[15:0] IbsCompToRetCtr */
		SET(OF_TAG_TO_RET_CTR, pm__bits(data, 31, 16)); /* [31:16] IbsTagToRetCtr */
		/* [34] IbsOpReturn, [35] IbsOpBrnTaken, [36] IbsOpBrnMisp: meaningful for a retired branch */
		SET_IF(brn_ret, OF_OP_RETURN, pm__bits(data, 34, 34));
		SET_IF(brn_ret, OF_OP_BRN_TAKEN, pm__bits(data, 35, 35));
		SET_IF(brn_ret, OF_OP_BRN_MISP, pm__bits(data, 36, 36));
		SET(OF_OP_BRN_RET, brn_ret);                     /* [37] IbsOpBrnRet */
		SET(OF_OP_RIP_INVALID, pm__bits(data, 38, 38));  /* [38] IbsRipInvalid */
		SET(OF_OP_BRN_FUSE, pm__bits(data, 39, 39));     /* [39] IbsOpBrnFuse */
		SET(OF_OP_MICROCODE, pm__bits(data, 40, 40));    /* [40] IbsOpMicrocode */
	}
	/* IBS_OP_RIP: valid unless IBS_OP_DATA[38] IbsRipInvalid. */
	SET_IF(n >= 3 && !pm__bits(data, 38, 38), OF_OP_RIP, pm__ld64(p + 12, be));

	if (n >= 5) {
		d3 = pm__ld64(p + 36, be);
		/* Erratum 1293 (family 19h model < 10h): L2Miss, OpDcMissOpenMemReqs and
		 * IBS_OP_DATA2 are unreliable when DcMissNoMabAlloc or SwPf is set. */
		erratum1293 = o->fam19_early && (pm__bits(d3, 16, 16) || pm__bits(d3, 21, 21));
		SET(OF_OP_DATA3, d3);
		SET(OF_LD_OP, pm__bits(d3, 0, 0));               /* IBS_OP_DATA3[0] IbsLdOp */
		SET(OF_ST_OP, pm__bits(d3, 1, 1));               /* [1] IbsStOp */
		SET(OF_DC_L1TLB_MISS, pm__bits(d3, 2, 2));       /* [2] IbsDcL1TlbMiss */
		SET(OF_DC_L2TLB_MISS, pm__bits(d3, 3, 3));       /* [3] IbsDcL2TlbMiss */
		SET(OF_DC_L1TLB_HIT_2M, pm__bits(d3, 4, 4));     /* [4] IbsDcL1TlbHit2M */
		SET(OF_DC_L1TLB_HIT_1G, pm__bits(d3, 5, 5));     /* [5] IbsDcL1TlbHit1G */
		SET(OF_DC_L2TLB_HIT_2M, pm__bits(d3, 6, 6));     /* [6] IbsDcL2TlbHit2M */
		SET(OF_DC_MISS, pm__bits(d3, 7, 7));             /* [7] IbsDcMiss */
		SET(OF_DC_MIS_ACC, pm__bits(d3, 8, 8));          /* [8] IbsDcMisAcc */
		SET(OF_DC_WC_MEM_ACC, pm__bits(d3, 13, 13));     /* [13] IbsDcWcMemAcc */
		SET(OF_DC_UC_MEM_ACC, pm__bits(d3, 14, 14));     /* [14] IbsDcUcMemAcc */
		SET(OF_DC_LOCKED_OP, pm__bits(d3, 15, 15));      /* [15] IbsDcLockedOp */
		SET(OF_DC_MISS_NO_MAB_ALLOC, pm__bits(d3, 16, 16)); /* [16] DcMissNoMabAlloc */
		SET(OF_DC_LIN_ADDR_VALID, pm__bits(d3, 17, 17)); /* [17] IbsDcLinAddrValid */
		SET(OF_DC_PHY_ADDR_VALID, pm__bits(d3, 18, 18)); /* [18] IbsDcPhyAddrValid */
		SET(OF_DC_L2_TLB_HIT_1G, pm__bits(d3, 19, 19));  /* [19] IbsDcL2TlbHit1G */
		SET_IF(!erratum1293, OF_L2_MISS, pm__bits(d3, 20, 20)); /* [20] IbsL2Miss */
		SET(OF_SW_PF, pm__bits(d3, 21, 21));             /* [21] IbsSwPf */
		/* [25:22] IbsOpMemWidth: 2^(w-1) bytes, 0 = not a memory op */
		SET_IF(pm__bits(d3, 25, 22) != 0, OF_OP_MEM_WIDTH, 1ULL << (pm__bits(d3, 25, 22) - 1));
		SET_IF(!erratum1293, OF_OP_DC_MISS_OPEN_MEM_REQS, pm__bits(d3, 31, 26)); /* [31:26] */
		SET(OF_DC_MISS_LAT, pm__bits(d3, 47, 32));       /* [47:32] IbsDcMissLat */
		SET(OF_TLB_REFILL_LAT, pm__bits(d3, 63, 48));    /* [63:48] IbsTlbRefillLat */
	}
	if (n >= 4 && !erratum1293) {
		uint64_t src;

		d2 = pm__ld64(p + 28, be);
		SET(OF_OP_DATA2, d2);
		/* IBS_OP_DATA2[2:0] DataSrc; Zen 4 adds [7:6] DataSrcHi as bits 4:3 */
		src = pm__bits(d2, 2, 0);
		if (o->zen4)
			src |= pm__bits(d2, 7, 6) << 3;
		SET(OF_DATA_SRC, src);
		SET(OF_RMT_NODE, pm__bits(d2, 4, 4));            /* [4] RmtNode */
		/* [5] CacheHitSt: 0 M-state, 1 O-state; only for cache sources */
		SET_IF(data_src_has_hit_state(o, src), OF_CACHE_HIT_ST, pm__bits(d2, 5, 5));
		SET_IF(o->strmst, OF_STRM_ST, pm__bits(d2, 8, 8));       /* [8] StrmSt */
		SET_IF(o->rmtsocket, OF_RMT_SOCKET, pm__bits(d2, 9, 9)); /* [9] RmtSocket */
	}
	SET_IF(n >= 6 && pm__bits(d3, 17, 17), OF_DC_LINADDR, pm__ld64(p + 44, be));
	SET_IF(n >= 7 && pm__bits(d3, 18, 18), OF_DC_PHYSADDR, pm__ld64(p + 52, be));
	if (n >= 8 && brn_ret) {
		uint64_t tgt = pm__ld64(p + 60, be);
		SET_IF(tgt != 0, OF_BR_TARGET, tgt);
	}
	if (extra_off < len) {
		SET(OF_EXTRA, len - extra_off);
		out->bytes = p + extra_off;
	}
	return 0;
}

static const char *const data_src_legacy[8] = {
	"none", "(reserved)", "Local node cache", "DRAM", "Remote node cache",
	"(reserved)", "(reserved)", "Other",
};
static const char *const data_src_zen4[32] = {
	[0] = "none",
	[1] = "Local L3 or other L1/L2 in CCX",
	[2] = "Another CCX cache in the same NUMA node",
	[3] = "DRAM",
	[5] = "Another CCX cache in a different NUMA node",
	[6] = "Long-latency DIMM",
	[7] = "MMIO/Config/PCI/APIC",
	[8] = "Extension Memory",
	[12] = "Coherent Memory of a different processor type",
};

static const char *op_code_name(const struct pm__raw_opts *o, size_t field, uint64_t code)
{
	switch (field) {
	case OF_CNT_CTL:
		return code == 0 ? "cycles" : code == 1 ? "uOps" : NULL;
	case OF_CACHE_HIT_ST:
		return code == 0 ? "M-state" : code == 1 ? "O-state" : NULL;
	case OF_DATA_SRC:
		if (o->zen4)
			return code < 32 ? (data_src_zen4[code] ? data_src_zen4[code] : "(reserved)") : NULL;
		return code < 8 ? data_src_legacy[code] : NULL;
	default:
		return NULL;
	}
}

const struct pm_raw_decoder pm__raw_ibs_op = {
	.name = "ibs_op",
	.key = "ibs_op",
	.fields = op_fields,
	.nfields = OF_COUNT,
	.decode = op_decode,
	.code_name = op_code_name,
};

/* ======================================================================== */
/* Attribution: the address IBS tagged, when the hardware says it is valid. */

int pm_ibs_attribute(const pm_raw_decoder *d, const pm_raw_ctx *ctx, const void *payload, size_t len,
		     uint64_t sample_ip, struct pm_ibs_attribution *out)
{
	struct pm_ibs_attribution a;
	uint64_t v[PM__RAW_MAXF];
	uint8_t present[PM__RAW_MAXF];
	size_t f_valid, f_addr;
	int rc;

	if (!d || !out || (!payload && len))
		return pm__err(EINVAL, "pm_ibs_attribute: NULL %s", !d ? "decoder" : !out ? "out" : "payload");
	rc = PM__SZ_VALID(out, pm_ibs_attribution, PM_IBS_ATTRIBUTION_SZ_V1);
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.sz = sizeof(a);
	if (d == &pm__raw_ibs_op) {
		a.kind = PM_IBS_KIND_OP;
		f_valid = OF_VALID;
		f_addr = OF_OP_RIP;     /* absent when IbsRipInvalid (or no IBS_OP_DATA) */
	} else if (d == &pm__raw_ibs_fetch) {
		a.kind = PM_IBS_KIND_FETCH;
		f_valid = FF_VALID;
		f_addr = FF_FETCH_LINADDR;
	} else {
		return pm__err(PM_ERR_NO_DECODER, "pm_ibs_attribute: decoder %s is not an IBS decoder", d->name);
	}
	rc = pm_raw_decode_row(d, ctx, payload, len, v, present, PM__RAW_MAXF);
	if (rc < 0)
		return rc;
	a.ip = sample_ip;
	a.valid = present[f_valid] && v[f_valid];
	a.exact = a.valid && present[f_addr];
	a.tagged = a.exact ? v[f_addr] : 0;
	a.addr = a.exact ? a.tagged : sample_ip;
	a.ip_differs = a.exact && a.tagged != sample_ip;
	pm__struct_copy_out(out, out->sz, &a, sizeof(a));
	return 0;
}
