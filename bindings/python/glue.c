/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* The C side of the Python binding: see glue.h. */
#define PY_SSIZE_T_CLEAN
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "glue.h"

/* The exception classes live in Python (profileme/_errors.py): from_code()
 * gives the one for a library failure. */
static PyObject *pmpy_from_code;

int pmpy_init(PyObject *module)
{
	(void)module;
	return 0;
}

/* A new exception object (not raised) for a positive code and a message
 * (a new reference, stolen), with an event position when >= 0. */
static PyObject *pmpy_exc_make(int err, PyObject *msg, Py_ssize_t position)
{
	PyObject *exc;

	if (!msg)
		return NULL;
	if (!pmpy_from_code) {
		PyObject *mod = PyImport_ImportModule("profileme._errors");

		if (mod)
			pmpy_from_code = PyObject_GetAttrString(mod, "from_code");
		Py_XDECREF(mod);
		if (!pmpy_from_code) {
			Py_DECREF(msg);
			return NULL;
		}
	}
	if (position >= 0)
		exc = PyObject_CallFunction(pmpy_from_code, "iOn", err, msg, position);
	else
		exc = PyObject_CallFunction(pmpy_from_code, "iO", err, msg);
	Py_DECREF(msg);
	return exc;
}

/* A new exception object (not raised) for a negative library return value. */
static PyObject *pmpy_exc_new(int err, const char *what)
{
	const char *msg;

	if (err < 0)
		err = -err;
	/* the detailed message when the last failure recorded one for this code
	 * (never a stale one of an earlier failure), else what failed and the
	 * code's text */
	msg = pm_error_string(-err);
	if (msg && *msg && strcmp(msg, pm_strerror(-err)))
		return pmpy_exc_make(err, PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "replace"), -1);
	return pmpy_exc_make(err, PyUnicode_FromFormat("%s: %s", what, pm_strerror(-err)), -1);
}

/* Raise the profileme.Error subclass for a negative library return value. */
static void *pmpy_raise(int err, const char *what)
{
	PyObject *exc;

	if (PyErr_Occurred())
		return NULL;
	exc = pmpy_exc_new(err, what);
	if (exc) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

/* Helpers that steal a reference to the value. */
static int pmpy_set(PyObject *d, const char *k, PyObject *v)
{
	int rc;

	if (!v)
		return -1;
	rc = PyDict_SetItemString(d, k, v);
	Py_DECREF(v);
	return rc;
}

static PyObject *pmpy_str(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* ---------------------------------------------------------------- files */

static int pmpy_check(const void *p, const char *what)
{
	if (!p) {
		PyErr_Format(PyExc_ValueError, "%s is closed", what);
		return -1;
	}
	return 0;
}

/* A growable byte buffer for results built without the GIL. */
typedef struct { char *p; size_t n, cap; } pmpy_buf;

static int pmpy_grow(pmpy_buf *b, size_t more)
{
	if (b->cap - b->n < more) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		char *p;

		while (cap - b->n < more)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	return 0;
}

/* Release the buffers of v[0..n) that were acquired (obj set). */
static void pmpy_release(Py_buffer *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i].obj)
			PyBuffer_Release(&v[i]);
}

/* ---------------------------------------------------------------- columns */

PyObject *pmpy_columns_read(pm_columns *c, PyObject *buffers, long cap)
{
	Py_buffer views[256];
	void *bufs[256];
	Py_ssize_t nb;
	size_t n = 0;
	int err = 0;
	Py_ssize_t got = 0;

	if (pmpy_check(c, "columns"))
		return NULL;
	if (cap <= 0 || (unsigned long)cap > (1UL << 40) / 8) {
		PyErr_Format(PyExc_ValueError, "batch size %ld out of range", cap);
		return NULL;
	}
	if (!PySequence_Check(buffers)) {
		PyErr_SetString(PyExc_TypeError, "buffers must be a sequence of writable buffers");
		return NULL;
	}
	nb = PySequence_Size(buffers);
	if (nb < 0)
		return NULL;
	if ((size_t)nb > pm_columns_count(c) || nb > 256) {
		PyErr_Format(PyExc_ValueError, "%zd buffers for %zu columns", nb, pm_columns_count(c));
		return NULL;
	}
	for (got = 0; got < nb; got++) {
		PyObject *o = PySequence_GetItem(buffers, got);
		size_t need = (size_t)cap * pm_columns_width(c, (size_t)got);

		if (!o)
			goto out;
		if (o == Py_None) {
			bufs[got] = NULL;
			views[got].obj = NULL;
			Py_DECREF(o);
			continue;
		}
		if (PyObject_GetBuffer(o, &views[got], PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
			Py_DECREF(o);
			goto out;
		}
		Py_DECREF(o);
		if ((size_t)views[got].len < need) {
			PyErr_Format(PyExc_ValueError, "buffer %zd holds %zd bytes, %zu needed", got,
				     views[got].len, need);
			PyBuffer_Release(&views[got]);
			goto out;
		}
		bufs[got] = views[got].buf;
	}
	Py_BEGIN_ALLOW_THREADS
	err = pm_columns_read(c, bufs, (size_t)nb, (size_t)cap, &n);
	Py_END_ALLOW_THREADS
out:
	for (Py_ssize_t i = 0; i < got; i++)
		if (bufs[i] && views[i].obj)
			PyBuffer_Release(&views[i]);
	if (PyErr_Occurred())
		return NULL;
	if (err < 0 && n == 0)
		return pmpy_raise(err, "reading samples");
	return Py_BuildValue("(ni)", (Py_ssize_t)n, err);
}

/* Fill rows of a structured array: offsets[i] is column i's offset in a row
 * (None: skip).  The buffer must hold cap rows of row_size bytes. */
PyObject *pmpy_columns_read_rows(pm_columns *c, PyObject *array, PyObject *offsets, long row_size, long cap)
{
	size_t offs[512];
	Py_buffer view;
	Py_ssize_t no;
	size_t n = 0;
	int err;

	if (pmpy_check(c, "columns"))
		return NULL;
	if (row_size <= 0 || cap <= 0 || (unsigned long)cap > (1UL << 40) / (unsigned long)row_size) {
		PyErr_Format(PyExc_ValueError, "bad batch: %ld rows of %ld bytes", cap, row_size);
		return NULL;
	}
	if (!PySequence_Check(offsets)) {
		PyErr_SetString(PyExc_TypeError, "offsets must be a sequence");
		return NULL;
	}
	no = PySequence_Size(offsets);
	if (no < 0)
		return NULL;
	if ((size_t)no > pm_columns_count(c) || no > 512) {
		PyErr_Format(PyExc_ValueError, "%zd offsets for %zu columns", no, pm_columns_count(c));
		return NULL;
	}
	for (Py_ssize_t i = 0; i < no; i++) {
		PyObject *o = PySequence_GetItem(offsets, i);

		if (!o)
			return NULL;
		if (o == Py_None) {
			offs[i] = SIZE_MAX;
		} else {
			long v = PyLong_AsLong(o);

			if (v == -1 && PyErr_Occurred()) {
				Py_DECREF(o);
				return NULL;
			}
			if (v < 0 || v >= row_size) {
				Py_DECREF(o);
				PyErr_Format(PyExc_ValueError, "offset %ld outside a row of %ld bytes", v, row_size);
				return NULL;
			}
			offs[i] = (size_t)v;
		}
		Py_DECREF(o);
	}
	if (PyObject_GetBuffer(array, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
		return NULL;
	if ((size_t)view.len < (size_t)cap * (size_t)row_size) {
		PyErr_Format(PyExc_ValueError, "buffer holds %zd bytes, %zu needed", view.len,
			     (size_t)cap * (size_t)row_size);
		PyBuffer_Release(&view);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	err = pm_columns_read_rows(c, view.buf, (size_t)row_size, offs, (size_t)no, (size_t)cap, &n);
	Py_END_ALLOW_THREADS
	PyBuffer_Release(&view);
	if (err < 0)
		/* the rows before the damage, and the error (not raised) */
		return Py_BuildValue("(niN)", (Py_ssize_t)n, err, pmpy_exc_new(err, "reading samples"));
	return Py_BuildValue("(niO)", (Py_ssize_t)n, err, Py_None);
}

/* The cpumode (PERF_RECORD_MISC_*) a PERF_CONTEXT_* marker starts, or -1
 * for a marker that names none (PERF_CONTEXT_GUEST alone, USER_DEFERRED:
 * the mode stays as it was). */
static int pmpy_marker_mode(uint64_t ip)
{
	switch (ip) {
	case PM_CONTEXT_HV:
		return PM_RECORD_MISC_HYPERVISOR;
	case PM_CONTEXT_KERNEL:
		return PM_RECORD_MISC_KERNEL;
	case PM_CONTEXT_USER:
	case PM_CONTEXT_USER_DEFERRED:
		return PM_RECORD_MISC_USER;
	case PM_CONTEXT_GUEST_KERNEL:
		return PM_RECORD_MISC_GUEST_KERNEL;
	case PM_CONTEXT_GUEST_USER:
		return PM_RECORD_MISC_GUEST_USER;
	default:
		return -1;
	}
}

/* Callchain frames of the samples (of one attr index, or all when event <
 * 0) as (bytes of native u64 ips, bytes of u8 cpumodes, bytes of native i64
 * offsets): each frame's cpumode is that of the last context marker before
 * it (the sample's own cpumode before any marker); markers are no frames. */
static PyObject *pmpy_callchain_walk(pm_file *f, int event, bool with_modes)
{
	struct pm_file_record rec = { .sz = sizeof(rec) };
	pmpy_buf ips = { 0 }, modes = { 0 }, offs = { 0 };
	PyObject *res = NULL;
	int rc = 0;

	if (pmpy_check(f, "file"))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = pmpy_grow(&offs, 8) ? -ENOMEM : 0;
	if (!rc) {
		memset(offs.p, 0, 8);
		offs.n = 8;
	}
	while (!rc && (rc = pm_file_next(f, &rec)) > 0) {
		struct pm_sample s = { .sz = sizeof(s) };
		int64_t end;
		uint8_t mode;

		rc = 0;
		if (rec.type != PM_RECORD_SAMPLE || (event >= 0 && rec.attr_idx != event))
			continue;
		if (pm_file_sample(f, &rec, &s))
			continue;
		mode = (uint8_t)(rec.misc & PM_RECORD_MISC_CPUMODE_MASK);
		if (s.present & PM_SAMPLE_CALLCHAIN) {
			for (uint64_t i = 0; i < s.callchain.nr; i++) {
				uint64_t ip = 0;

				if (pm_sample_callchain_ip(&s, i, &ip) < 0)
					continue;
				if (PM_CONTEXT_IS_MARKER(ip)) {
					int m = pmpy_marker_mode(ip);

					if (m >= 0)
						mode = (uint8_t)m;
					continue;
				}
				if (pmpy_grow(&ips, 8) || (with_modes && pmpy_grow(&modes, 1))) {
					rc = -ENOMEM;
					break;
				}
				memcpy(ips.p + ips.n, &ip, 8);
				ips.n += 8;
				if (with_modes)
					modes.p[modes.n++] = (char)mode;
			}
		}
		end = (int64_t)(ips.n / 8);
		if (!rc && pmpy_grow(&offs, 8))
			rc = -ENOMEM;
		if (!rc) {
			memcpy(offs.p + offs.n, &end, 8);
			offs.n += 8;
		}
	}
	Py_END_ALLOW_THREADS
	if (rc == -ENOMEM)
		PyErr_NoMemory();
	else if (rc < 0)
		pmpy_raise(rc, "reading callchains");
	else if (with_modes)
		res = Py_BuildValue("(y#y#y#)", ips.p ? ips.p : "", (Py_ssize_t)ips.n, modes.p ? modes.p : "",
				    (Py_ssize_t)modes.n, offs.p, (Py_ssize_t)offs.n);
	else
		res = Py_BuildValue("(y#y#)", ips.p ? ips.p : "", (Py_ssize_t)ips.n, offs.p,
				    (Py_ssize_t)offs.n);
	free(ips.p);
	free(modes.p);
	free(offs.p);
	return res;
}

/* Callchains without context markers: (ips, offsets), the chain of sample
 * k is ips[offsets[k]:offsets[k+1]] (u64 arrays as bytes). */
PyObject *pmpy_file_callchains(pm_file *f, int event)
{
	return pmpy_callchain_walk(f, event, false);
}

/* The same with each frame's cpumode: (ips, modes, offsets). */
PyObject *pmpy_file_callchain_frames(pm_file *f, int event)
{
	return pmpy_callchain_walk(f, event, true);
}

/* ---------------------------------------------------------------- attribution */

/* Where rows of samples() are charged, by the library's one rule
 * (pm_profileme_attribute(), pm_ibs_attribute()).  @p regs is an n x k
 * C-contiguous uint64 array of each row's payload registers in payload order
 * (ProfileMe: version, pmpc, i_stat, pctr_ctl; IBS op: caps, op_ctl, op_rip,
 * op_data; IBS fetch: caps, fetch_ctl, fetch_linaddr), @p ips the rows' sample
 * ips, @p ok (uint8) the rows whose payload decoded.  The payload is rebuilt
 * from them (its first field a u32, then u64s; ProfileMe little endian, IBS in
 * host order with no context) and handed to the library.  Returns a dict of
 * bytes, one native element per row: addr (u64), mode, charge, trap (u8;
 * 255 where not attributed), skid_valid, exact, ip_differs, attributed (u8),
 * skid (i64). */
PyObject *pmpy_attribute_rows(const char *decoder, PyObject *regs, PyObject *ips, PyObject *ok)
{
	enum { A_ADDR, A_SKID, A_MODE, A_CHARGE, A_TRAP, A_SKID_VALID, A_EXACT, A_DIFFERS, A_DONE, A_N };
	static const char *const names[A_N] = { "addr", "skid", "mode", "charge", "trap", "skid_valid",
						"exact", "ip_differs", "attributed" };
	const pm_raw_decoder *d;
	Py_buffer v[3] = { 0 }; /* regs, ips, ok */
	PyObject *res = NULL;
	char *out[A_N] = { 0 };
	size_t n, k;
	int pm, rc = 0;

	if (!decoder) {
		PyErr_SetString(PyExc_TypeError, "decoder must be a string");
		return NULL;
	}
	d = pm_raw_decoder_find(decoder);
	pm = d && !strcmp(decoder, "alpha_profileme");
	if (!d || (!pm && strcmp(decoder, "ibs_op") && strcmp(decoder, "ibs_fetch"))) {
		PyErr_Format(PyExc_ValueError, "no attribution rule for decoder %s", decoder);
		return NULL;
	}
	if (PyObject_GetBuffer(regs, &v[0], PyBUF_C_CONTIGUOUS | PyBUF_ND) < 0)
		return NULL;
	if (PyObject_GetBuffer(ips, &v[1], PyBUF_C_CONTIGUOUS) < 0 ||
	    PyObject_GetBuffer(ok, &v[2], PyBUF_C_CONTIGUOUS) < 0)
		goto out;
	n = (size_t)v[1].len / 8;
	k = v[0].ndim == 2 ? (size_t)v[0].shape[1] : 0;
	if ((size_t)v[1].len % 8 || v[0].ndim != 2 || (size_t)v[0].shape[0] != n || v[0].itemsize != 8 ||
	    (size_t)v[2].len != n || k < 2 || k > 8) {
		PyErr_SetString(PyExc_ValueError, "regs (n x 2..8 uint64), ips (n uint64) and ok (n uint8) "
				"do not match");
		goto out;
	}
	for (int i = 0; i < A_N; i++) {
		out[i] = malloc(n * (i <= A_SKID ? 8 : 1) + 1);
		if (!out[i]) {
			PyErr_NoMemory();
			goto out;
		}
	}
	Py_BEGIN_ALLOW_THREADS
	for (size_t r = 0; r < n && !rc; r++) {
		const uint64_t *rg = (const uint64_t *)v[0].buf + r * k;
		uint8_t payload[4 + 7 * 8];
		uint64_t ip, addr;
		int64_t skid = 0;
		uint8_t mode = 255, charge = 255, trap = 255, skv = 0, exact = 0, differs = 0, done = 0;
		size_t len = 4 + (k - 1) * 8;

		memcpy(&ip, (const char *)v[1].buf + 8 * r, 8);
		addr = ip;
		if (pm) {
			for (int b = 0; b < 4; b++)
				payload[b] = (uint8_t)(rg[0] >> (8 * b));
			for (size_t j = 1; j < k; j++)
				for (int b = 0; b < 8; b++)
					payload[4 + 8 * (j - 1) + b] = (uint8_t)(rg[j] >> (8 * b));
		} else {
			uint32_t caps = (uint32_t)rg[0];

			memcpy(payload, &caps, 4);
			for (size_t j = 1; j < k; j++)
				memcpy(payload + 4 + 8 * (j - 1), &rg[j], 8);
		}
		if (((const uint8_t *)v[2].buf)[r]) {
			if (pm) {
				struct pm_profileme_sample s = { .sz = sizeof(s) };
				struct pm_profileme_attribution a = { .sz = sizeof(a) };

				if (pm_profileme_decode(payload, len, &s) == 0 &&
				    pm_profileme_attribute(&s, ip, &a) == 0) {
					addr = a.addr;
					mode = (uint8_t)a.mode;
					charge = (uint8_t)a.charge;
					trap = (uint8_t)a.trap;
					skv = (uint8_t)!!a.skid_valid;
					skid = a.skid_valid ? a.skid : 0;
					done = 1;
				}
			} else {
				struct pm_ibs_attribution a = { .sz = sizeof(a) };

				if (pm_ibs_attribute(d, NULL, payload, len, ip, &a) == 0) {
					addr = a.addr;
					exact = (uint8_t)!!a.exact;
					differs = (uint8_t)!!a.ip_differs;
					done = 1;
				}
			}
		}
		memcpy(out[A_ADDR] + 8 * r, &addr, 8);
		memcpy(out[A_SKID] + 8 * r, &skid, 8);
		out[A_MODE][r] = (char)mode;
		out[A_CHARGE][r] = (char)charge;
		out[A_TRAP][r] = (char)trap;
		out[A_SKID_VALID][r] = (char)skv;
		out[A_EXACT][r] = (char)exact;
		out[A_DIFFERS][r] = (char)differs;
		out[A_DONE][r] = (char)done;
	}
	Py_END_ALLOW_THREADS
	res = PyDict_New();
	for (int i = 0; res && i < A_N; i++)
		if (pmpy_set(res, names[i], PyBytes_FromStringAndSize(out[i], (Py_ssize_t)(n * (i <= A_SKID ? 8 : 1)))))
			Py_CLEAR(res);
out:
	for (int i = 0; i < A_N; i++)
		free(out[i]);
	pmpy_release(v, 3);
	return res;
}

/* ------------------------------------------------------------ frame columns */

enum { FC_WIDEN, FC_CODES, FC_CPUMODE };

/* to_pandas()'s converted columns of a samples array in one pass over its
 * rows (each pass over a field of a structured array reads every row's
 * cache lines): @p rows a C-contiguous buffer of whole rows (a numpy
 * structured array, row_size bytes each), @p specs a list of (offset, size,
 * signed, kind, ncats, out): the native integer field of @p size bytes at
 * @p offset of each row goes to element i of the writable contiguous buffer
 * @p out, as FC_WIDEN (0: an unsigned field as uint64), FC_CODES (1: the
 * code of a categorical of ncats categories, -1 when out of range, in the
 * signed type of out's item size) or FC_CPUMODE (2: 0-7 as they are, 255
 * PALcode as 8, else -1; out int8).  Returns None. */
#define FC_MAX 16
#define PMPY_MODE_PALCODE_CODE 255

struct fc {
	size_t off, size, osize;
	bool sign;
	int kind;
	int64_t ncats;
	char *out;
};

/* Field of @p size bytes at @p p, sign- or zero-extended. */
static inline uint64_t fc_load(const char *p, size_t size, bool sign)
{
	switch (size) {
	case 1: { uint8_t x; memcpy(&x, p, 1); return sign ? (uint64_t)(int64_t)(int8_t)x : x; }
	case 2: { uint16_t x; memcpy(&x, p, 2); return sign ? (uint64_t)(int64_t)(int16_t)x : x; }
	case 4: { uint32_t x; memcpy(&x, p, 4); return sign ? (uint64_t)(int64_t)(int32_t)x : x; }
	default: { uint64_t x; memcpy(&x, p, 8); return x; }
	}
}

static inline int64_t fc_code(const struct fc *c, uint64_t u)
{
	if (c->kind == FC_CPUMODE)
		return u < 8 ? (int64_t)u : u == PMPY_MODE_PALCODE_CODE ? 8 : -1;
	if (c->sign)
		return (int64_t)u >= 0 && (int64_t)u < c->ncats ? (int64_t)u : -1;
	return u < (uint64_t)c->ncats ? (int64_t)u : -1;
}

static inline void fc_store(char *out, size_t osize, size_t i, int64_t v)
{
	switch (osize) {
	case 1: out[i] = (char)(int8_t)v; break;
	case 2: { int16_t x = (int16_t)v; memcpy(out + i * 2, &x, 2); break; }
	case 4: { int32_t x = (int32_t)v; memcpy(out + i * 4, &x, 4); break; }
	default: memcpy(out + i * 8, &v, 8); break;
	}
}

/* Rows [i0, i1) of one spec; the common shapes as loops of their own (the
 * switches then fold away), the rest through the general one. */
static void fc_block(const struct fc *c, const char *base, size_t row_size, size_t i0, size_t i1)
{
	const char *p = base + c->off;

#define FC_LOOP(SIZE, SIGN, OSIZE)                                                        \
	for (size_t i = i0; i < i1; i++) {                                                \
		uint64_t u = fc_load(p + i * row_size, SIZE, SIGN);                       \
		if (c->kind == FC_WIDEN)                                                  \
			memcpy(c->out + i * 8, &u, 8);                                    \
		else                                                                      \
			fc_store(c->out, OSIZE, i, fc_code(c, u));                        \
	}
	if (c->kind == FC_WIDEN && c->size == 4)
		FC_LOOP(4, false, 8)
	else if (c->kind == FC_CPUMODE)
		FC_LOOP(1, false, 1)
	else if (c->kind == FC_CODES && c->size == 4 && c->sign && c->osize == 1)
		FC_LOOP(4, true, 1)
	else
		FC_LOOP(c->size, c->sign, c->osize)
#undef FC_LOOP
}

PyObject *pmpy_frame_convert(PyObject *rows, long row_size, PyObject *specs)
{
	struct fc fc[FC_MAX];
	Py_buffer in = { 0 }, outv[FC_MAX];
	Py_ssize_t ns;
	size_t n;
	PyObject *res = NULL;

	memset(outv, 0, sizeof(outv));
	if (!PyList_Check(specs) || (ns = PyList_GET_SIZE(specs)) > FC_MAX) {
		PyErr_Format(PyExc_TypeError, "frame_convert: specs must be a list of at most %d tuples", FC_MAX);
		return NULL;
	}
	if (row_size <= 0 || PyObject_GetBuffer(rows, &in, PyBUF_C_CONTIGUOUS) < 0) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_ValueError, "frame_convert: row_size must be positive");
		return NULL;
	}
	if (in.len % row_size) {
		PyErr_SetString(PyExc_ValueError, "frame_convert: the buffer is no whole number of rows");
		goto out;
	}
	n = (size_t)(in.len / row_size);
	for (Py_ssize_t k = 0; n && k < ns; k++) {
		PyObject *t = PyList_GET_ITEM(specs, k), *o;
		unsigned long long off, size;
		int sign, kind;
		long long ncats;

		if (!PyArg_ParseTuple(t, "KKiiLO", &off, &size, &sign, &kind, &ncats, &o))
			goto out;
		if (PyObject_GetBuffer(o, &outv[k], PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
			goto out;
		fc[k] = (struct fc){ .off = (size_t)off, .size = (size_t)size, .sign = sign != 0, .kind = kind,
				     .ncats = ncats, .out = outv[k].buf,
				     .osize = n ? (size_t)outv[k].len / n : 0 };
		if ((size != 1 && size != 2 && size != 4 && size != 8) || off + size > (unsigned long long)row_size ||
		    kind < FC_WIDEN || kind > FC_CPUMODE || (size_t)outv[k].len != n * fc[k].osize ||
		    (kind == FC_WIDEN && (sign || fc[k].osize != 8)) ||
		    (kind == FC_CPUMODE && (size != 1 || fc[k].osize != 1)) ||
		    (kind == FC_CODES && fc[k].osize != 1 && fc[k].osize != 2 && fc[k].osize != 4 &&
		     fc[k].osize != 8)) {
			PyErr_Format(PyExc_ValueError, "frame_convert: bad spec %zd", k);
			goto out;
		}
	}
	if (!n)
		ns = 0;
	Py_BEGIN_ALLOW_THREADS
	/* blocks of rows that stay in the cache while each spec's loop (its
	 * sizes and kind chosen once per block, not per row) goes over them */
	for (size_t i0 = 0; ns && i0 < n; i0 += 256) {
		size_t i1 = n - i0 < 256 ? n : i0 + 256;

		for (Py_ssize_t k = 0; k < ns; k++)
			fc_block(&fc[k], (const char *)in.buf, (size_t)row_size, i0, i1);
	}
	Py_END_ALLOW_THREADS
	res = Py_None;
	Py_INCREF(res);
out:
	pmpy_release(outv, FC_MAX);
	PyBuffer_Release(&in);
	return res;
}

/* ---------------------------------------------------------------- symbols */

#define PMPY_MODE_PALCODE 255

/* The query columns of symbolize() and symbol_rows(), by index. */
enum { Q_PID, Q_TID, Q_IP, Q_MODE, Q_TIME, Q_N };

/* The query columns (pids, tids, ips, cpumodes, times; tids and times
 * may be None): 1-D buffers of n native int32, uint32, uint64, uint8 and
 * uint64 elements, strided allowed (the fields of a numpy structured
 * array).  q->p[i] is each column's first element (NULL for None) and
 * q->stride[i] the bytes to the next; with @p gather, a strided column is
 * copied into contiguous elements first (one pass over the rows, whose
 * fields share its cache lines) for the calls that take plain arrays.
 * Release with pmpy_sym_query_release(). */
struct pmpy_symq {
	Py_buffer v[Q_N];
	const void *p[Q_N];
	char *own[Q_N];
	Py_ssize_t stride[Q_N];
	size_t n;
};

static void pmpy_sym_query_release(struct pmpy_symq *q)
{
	for (int i = 0; i < Q_N; i++)
		PyMem_Free(q->own[i]);
	pmpy_release(q->v, Q_N);
}

static int pmpy_sym_query(struct pmpy_symq *q, PyObject *pids, PyObject *tids, PyObject *ips,
			  PyObject *modes, PyObject *times, bool gather)
{
	PyObject *const objs[Q_N] = { pids, tids, ips, modes, times };
	static const size_t item[Q_N] = { 4, 4, 8, 1, 8 };
	size_t n = 0;

	memset(q, 0, sizeof(*q));
	for (int i = 0; i < Q_N; i++) {
		if ((i == Q_TID || i == Q_TIME) && objs[i] == Py_None)
			continue;
		if (PyObject_GetBuffer(objs[i], &q->v[i], PyBUF_STRIDES) < 0)
			goto fail;
	}
	for (int k = 0; k < Q_N; k++) {
		/* query column k in place: the ips first, whose count is n */
		int i = (k + Q_IP) % Q_N;
		const Py_buffer *b = &q->v[i];
		bool flat = b->ndim == 0 || (b->ndim == 1 && b->strides[0] == b->itemsize);
		size_t cnt = flat ? (size_t)b->len / item[i] : (size_t)b->shape[0];

		if (!b->obj)
			continue;
		if (i == Q_IP)
			n = cnt;
		if (b->ndim > 1 || (flat && (size_t)b->len % item[i]) ||
		    (!flat && (size_t)b->itemsize != item[i]) || cnt != n) {
			PyErr_SetString(PyExc_ValueError, "pids (int32), tids (uint32), ips (uint64), cpumodes (uint8) "
					"and times (uint64) must have the same length (one-dimensional; strided: "
					"elements of those sizes)");
			goto fail;
		}
		q->stride[i] = flat ? (Py_ssize_t)item[i] : b->strides[0];
		q->p[i] = b->buf;
		/* in place (pm_sym_rows::stride: at least the element's size), or
		 * gathered (reversed or overlapping views too) */
		if (!flat && !gather && b->strides[0] >= (Py_ssize_t)item[i])
			continue;
		if (!flat) {
			q->stride[i] = (Py_ssize_t)item[i];
			q->own[i] = PyMem_Malloc(cnt ? cnt * item[i] : 1);
			if (!q->own[i]) {
				PyErr_NoMemory();
				goto fail;
			}
			q->p[i] = q->own[i];
		}
	}
	gather = false; /* now: is any column copied? */
	for (int i = 0; i < Q_N; i++)
		gather = gather || q->own[i];
	Py_BEGIN_ALLOW_THREADS
	for (size_t r = 0; gather && r < n; r++)
		for (int i = 0; i < Q_N; i++) {
			const char *src;

			if (!q->own[i])
				continue;
			src = (const char *)q->v[i].buf + (Py_ssize_t)r * q->v[i].strides[0];
			/* fixed sizes: inlined loads and stores, no memcpy call per field */
			if (item[i] == 8)
				memcpy(q->own[i] + r * 8, src, 8);
			else if (item[i] == 4)
				memcpy(q->own[i] + r * 4, src, 4);
			else
				q->own[i][r] = *src;
		}
	Py_END_ALLOW_THREADS
	q->n = n;
	return 0;
fail:
	pmpy_sym_query_release(q);
	return -1;
}

/* Resolve (pid, ip, cpumode, time) queries (equal-length native int32 /
 * uint64 / uint8 / uint64 buffers; times may be None) with the library's one
 * policy: pm_sym_new_from_file() decides on kallsyms, pm_sym_resolve_file()
 * replays the records of @p f and resolves each query with the maps as they
 * were at its time (None: at the end of the recording), each distinct
 * (pid, maps generation, ip, mode) once.  Returns (idx, table): idx the
 * bytes of n native uint32 indexes into table, a list of (name, dso,
 * offset).  A cpumode of 255 is a PALcode physical address: "[PALcode]"
 * (its offset is 0 here; the caller gives the address).  @p symfs prefixes
 * every mapped file name, @p kallsyms replaces /proc/kallsyms (NULL:
 * defaults); @p path is the recording's path (NULL: not opened by path),
 * for the sidecar of a synthetic recording (pm_sym_opts.path). */
PyObject *pmpy_symbolize(pm_file *f, PyObject *pids, PyObject *ips, PyObject *modes, PyObject *times,
			 const char *symfs, const char *kallsyms, const char *path)
{
	struct pm_sym_opts so = { .sz = sizeof(so), .sysroot = symfs, .kallsyms = kallsyms, .path = path };
	struct pmpy_symq q;
	pm_sym *sym = NULL;
	PyObject *res = NULL, *table = NULL, *idx = NULL;
	uint32_t *out = NULL;
	int64_t nu = 0;
	size_t n;
	int rc;

	if (pmpy_check(f, "file"))
		return NULL;
	if (pmpy_sym_query(&q, pids, Py_None, ips, modes, times, true) < 0)
		return NULL;
	n = q.n;
	rc = pm_sym_new_from_file(&sym, f, &so);
	if (rc < 0) {
		pmpy_raise(rc, "symbolizer");
		goto out;
	}
	out = PyMem_Malloc(n ? n * sizeof(*out) : 1);
	if (!out) {
		PyErr_NoMemory();
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	nu = pm_sym_resolve_file(sym, f, n, q.p[Q_PID], q.p[Q_IP], q.p[Q_MODE], q.p[Q_TIME],
				 PM_SYM_WHEN_TIME, out);
	Py_END_ALLOW_THREADS
	if (nu < 0) {
		pmpy_raise((int)nu, "symbolizing");
		goto out;
	}
	table = PyList_New((Py_ssize_t)nu + 1);
	for (int64_t k = 0; table && k < nu; k++) {
		struct pm_sym_result sr = { .sz = sizeof(sr) };
		PyObject *t;

		if (pm_sym_resolved_get(sym, (size_t)k, &sr) < 0)
			t = Py_BuildValue("(ssK)", "[unknown]", "[unknown]", 0ULL);
		else
			t = Py_BuildValue("(NNK)", pmpy_str(sr.name), pmpy_str(sr.dso), (unsigned long long)sr.offset);
		if (!t) {
			Py_CLEAR(table);
			break;
		}
		PyList_SET_ITEM(table, (Py_ssize_t)k, t);
	}
	if (table) {
		/* a PALcode physical address (pm_profileme_attribute(): PM_PROFILEME_CHARGE_PALCODE) */
		PyObject *t = Py_BuildValue("(ssK)", "[PALcode]", "[PALcode]", 0ULL);

		if (!t) {
			Py_CLEAR(table);
			goto out;
		}
		PyList_SET_ITEM(table, (Py_ssize_t)nu, t);
		for (size_t i = 0; i < n; i++)
			if (((const uint8_t *)q.p[Q_MODE])[i] == PMPY_MODE_PALCODE)
				out[i] = (uint32_t)nu;
		idx = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)(n * sizeof(*out)));
		if (idx)
			res = Py_BuildValue("(NN)", idx, table);
		else
			Py_DECREF(table);
		table = NULL;
	}
out:
	Py_XDECREF(table);
	PyMem_Free(out);
	pm_sym_free(sym);
	pmpy_sym_query_release(&q);
	return res;
}

/* Whole symbol columns: the rows' query columns (pmpy_sym_query(); cpumode
 * 255 is a PALcode address) resolved by pm_columns_resolve_rows(c) when @p c
 * is given (a reader made with pm_columns_opts.sym = @p sym that has read
 * the file), else by pm_sym_resolve_rows(sym, f), the strided columns read
 * in place (pm_sym_rows::stride); @p partial: the rows are those before a
 * reading error (PM_SYM_ROWS_PARTIAL).  Returns (sym, dso, symoff, comm,
 * sym_names, dso_names, comm_names): the first four bytes of n codes (sym,
 * dso, comm: native int8 for a table of fewer than 127 names, int16 below
 * 32767, else uint32, the code types of pandas' categoricals; symoff native
 * uint64) filled by C with the GIL released (comm None without tids), then
 * the library's sorted string tables. */
static PyObject *pmpy_sym_rows_do(pm_sym *sym, pm_file *f, pm_columns *c, PyObject *pids, PyObject *tids,
				  PyObject *ips, PyObject *modes, PyObject *times, int basename, int partial,
				  const Py_buffer *sb, const struct pm_file_chunk *ck)
{
	struct pm_sym_rows rows = { .sz = sizeof(rows) };
	PyObject *res = NULL, *out[4] = { 0 }, *tab[3] = { 0 };
	struct pmpy_symq q;
	size_t n;
	int rc;

	if (pmpy_sym_query(&q, pids, tids, ips, modes, times, false) < 0)
		return NULL;
	n = q.n;
	for (int k = 0; k < 4; k++) {
		if (k == 3 && !q.v[Q_TID].obj)
			break;
		out[k] = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * (k == 2 ? 8 : 4)) + 1);
		if (!out[k])
			goto out;
	}
	rows.n = n;
	rows.pid = q.p[Q_PID];
	rows.tid = q.p[Q_TID];
	rows.addr = q.p[Q_IP];
	rows.cpumode = q.p[Q_MODE];
	rows.when = q.p[Q_TIME];
	rows.flags = (q.v[Q_TIME].obj ? PM_SYM_WHEN_TIME : 0) | (basename ? PM_SYM_ROWS_DSO_BASENAME : 0) |
		     (partial ? PM_SYM_ROWS_PARTIAL : 0);
	/* the columns in place (pm_sym_rows::stride is in the order pid, addr, cpumode, when, tid) */
	rows.stride[0] = (size_t)q.stride[Q_PID];
	rows.stride[1] = (size_t)q.stride[Q_IP];
	rows.stride[2] = (size_t)q.stride[Q_MODE];
	rows.stride[3] = (size_t)q.stride[Q_TIME];
	rows.stride[4] = (size_t)q.stride[Q_TID];
	rows.sym = (uint32_t *)PyBytes_AS_STRING(out[0]);
	rows.dso = (uint32_t *)PyBytes_AS_STRING(out[1]);
	rows.symoff = (uint64_t *)PyBytes_AS_STRING(out[2]);
	rows.comm = out[3] ? (uint32_t *)PyBytes_AS_STRING(out[3]) : NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = c ? pm_columns_resolve_rows(c, &rows) :
	     sb ? pm_sym_resolve_chunk_rows(sym, f, sb->buf, (size_t)sb->len, ck, &rows) :
		  pm_sym_resolve_rows(sym, f, &rows);
	Py_END_ALLOW_THREADS
	if (rc < 0) {
		pmpy_raise(rc, "symbolizing");
		goto out;
	}
	for (int t = 0; t < 3; t++) {
		int64_t cnt = pm_sym_rows_count(sym, t);

		tab[t] = PyList_New(cnt > 0 ? (Py_ssize_t)cnt : 0);
		for (int64_t k = 0; tab[t] && k < cnt; k++) {
			PyObject *o = pmpy_str(pm_sym_rows_string(sym, t, (size_t)k));

			if (!o)
				goto out;
			PyList_SET_ITEM(tab[t], (Py_ssize_t)k, o);
		}
		if (!tab[t])
			goto out;
	}
	for (int k = 0; k < 4; k++) {
		/* sym, dso and comm in the code type pandas keeps for their table's
		 * size (int8 below 127 names, int16 below 32767, else int32 / the
		 * uint32 indexes), narrowed in place: no conversion in Python */
		Py_ssize_t cnt = k == 2 || !out[k] ? 0 : PyList_GET_SIZE(tab[k == 3 ? 2 : k]);
		size_t w = k == 2 ? 8 : cnt < 127 ? 1 : cnt < 32767 ? 2 : 4;
		char *buf = out[k] ? PyBytes_AS_STRING(out[k]) : NULL;

		if (!out[k])
			continue;
		/* forward: element i is written below where element i + 1 is read
		 * (byte copies: the two views of the buffer may alias) */
		for (size_t i = 0; w < 4 && i < n; i++) {
			uint32_t v;

			memcpy(&v, buf + i * 4, 4);
			if (w == 1) {
				buf[i] = (char)(int8_t)v;
			} else {
				int16_t h = (int16_t)v;

				memcpy(buf + i * 2, &h, 2);
			}
		}
		if (_PyBytes_Resize(&out[k], (Py_ssize_t)(n * w)) < 0)
			goto out;
	}
	res = Py_BuildValue("(OOOOOOO)", out[0], out[1], out[2], out[3] ? out[3] : Py_None, tab[0], tab[1],
			    tab[2]);
out:
	for (int k = 0; k < 4; k++)
		Py_XDECREF(out[k]);
	for (int t = 0; t < 3; t++)
		Py_XDECREF(tab[t]);
	pmpy_sym_query_release(&q);
	return res;
}

/* pmpy_sym_rows_do() with a symbolizer of @p f made here (symfs, kallsyms,
 * path: pm_sym_opts) and a replay of @p f. */
PyObject *pmpy_symbol_rows(pm_file *f, PyObject *pids, PyObject *tids, PyObject *ips, PyObject *modes,
			   PyObject *times, const char *symfs, const char *kallsyms, const char *path, int basename, int partial)
{
	struct pm_sym_opts so = { .sz = sizeof(so), .sysroot = symfs, .kallsyms = kallsyms, .path = path };
	pm_sym *sym = NULL;
	PyObject *res;
	int rc;

	if (pmpy_check(f, "file"))
		return NULL;
	rc = pm_sym_new_from_file(&sym, f, &so);
	if (rc < 0)
		return pmpy_raise(rc, "symbolizer");
	res = pmpy_sym_rows_do(sym, f, NULL, pids, tids, ips, modes, times, basename, partial, NULL, NULL);
	pm_sym_free(sym);
	return res;
}

/* pmpy_symbol_rows() of the rows of one chunk with the index's sideband
 * (bytes of pm_chunk_index_sideband()) replayed instead of @p f:
 * pm_sym_resolve_chunk_rows() with the chunk's data bounds, time_hi and flags. */
PyObject *pmpy_chunk_symbol_rows(pm_file *f, PyObject *sideband, unsigned long long data_offset,
				 unsigned long long data_end, unsigned long long time_hi, unsigned int flags,
				 PyObject *pids, PyObject *tids, PyObject *ips, PyObject *modes, PyObject *times,
				 const char *symfs, const char *kallsyms, const char *path, int basename)
{
	struct pm_sym_opts so = { .sz = sizeof(so), .sysroot = symfs, .kallsyms = kallsyms, .path = path };
	struct pm_file_chunk ck = { .sz = sizeof(ck), .data_offset = data_offset, .data_end = data_end,
				    .time_lo = 0, .time_hi = time_hi, .flags = flags };
	pm_sym *sym = NULL;
	Py_buffer sb;
	PyObject *res;
	int rc;

	if (pmpy_check(f, "file"))
		return NULL;
	if (PyObject_GetBuffer(sideband, &sb, PyBUF_SIMPLE) < 0)
		return NULL;
	rc = pm_sym_new_from_file(&sym, f, &so);
	if (rc < 0) {
		PyBuffer_Release(&sb);
		return pmpy_raise(rc, "symbolizer");
	}
	res = pmpy_sym_rows_do(sym, f, NULL, pids, tids, ips, modes, times, basename, 0, &sb, &ck);
	pm_sym_free(sym);
	PyBuffer_Release(&sb);
	return res;
}

/* pmpy_sym_rows_do() of a reader made with pm_columns_opts.sym = @p sym. */
PyObject *pmpy_columns_symbol_rows(pm_columns *c, pm_sym *sym, PyObject *pids, PyObject *tids, PyObject *ips,
				   PyObject *modes, PyObject *times, int basename, int partial)
{
	if (pmpy_check(c, "columns") || pmpy_check(sym, "symbolizer"))
		return NULL;
	return pmpy_sym_rows_do(sym, NULL, c, pids, tids, ips, modes, times, basename, partial, NULL, NULL);
}
