/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * SWIG 4 interface of the private module profileme._glue (C extension
 * profileme._glue_c) over the hand-written glue.c.
 * The public Python API is the pure-Python package `profileme`
 * (bindings/python/profileme/), which wraps these calls in classes,
 * context managers and numpy arrays.  Library handles (pm_file, pm_columns,
 * pm_raw_ctx) cross as opaque SWIG pointers.
 */
%module(package="profileme") _glue

%{
#include "glue.h"
%}

/* Every glue call reports failure as a Python exception. */
%exception {
	$action
	if (PyErr_Occurred())
		SWIG_fail;
}

%typemap(in) PyObject * "$1 = $input;"
%typemap(out) PyObject * "$result = $1;"

%init %{
	if (pmpy_init(m) < 0)
		return NULL;
%}

typedef struct pm_file pm_file;
typedef struct pm_columns pm_columns;
typedef struct pm_sym pm_sym;

%rename("%(strip:[pmpy_])s") "";


PyObject *pmpy_file_callchains(pm_file *f, int event);
PyObject *pmpy_file_callchain_frames(pm_file *f, int event);
PyObject *pmpy_symbolize(pm_file *f, PyObject *pids, PyObject *ips, PyObject *modes, PyObject *times,
			 const char *symfs, const char *kallsyms, const char *path);
PyObject *pmpy_symbol_rows(pm_file *f, PyObject *pids, PyObject *tids, PyObject *ips, PyObject *modes,
			   PyObject *times, const char *symfs, const char *kallsyms, const char *path, int basename, int partial);
PyObject *pmpy_columns_symbol_rows(pm_columns *c, pm_sym *sym, PyObject *pids, PyObject *tids, PyObject *ips,
				   PyObject *modes, PyObject *times, int basename, int partial);
PyObject *pmpy_chunk_symbol_rows(pm_file *f, PyObject *sideband, unsigned long long data_offset,
				 unsigned long long data_end, unsigned long long time_hi, unsigned int flags,
				 PyObject *pids, PyObject *tids, PyObject *ips, PyObject *modes, PyObject *times,
				 const char *symfs, const char *kallsyms, const char *path, int basename);
PyObject *pmpy_attribute_rows(const char *decoder, PyObject *regs, PyObject *ips, PyObject *ok);
PyObject *pmpy_frame_convert(PyObject *rows, long row_size, PyObject *specs);


PyObject *pmpy_columns_read(pm_columns *c, PyObject *buffers, long cap);
PyObject *pmpy_columns_read_rows(pm_columns *c, PyObject *array, PyObject *offsets, long row_size, long cap);




/* The calls that moved to Python over the generated profileme.capi
 * (profileme/_lib.py) keep their names here for the callers of this private
 * module. */
%pythoncode %{
from ._lib import (version, file_open, file_open_fd, file_close, file_end_status,  # noqa: E402,F401
                   file_features, file_events, columns_new, columns_free, columns_schema,
                   columns_skipped, raw_decoders, attribution_names, pmus, encode, export,
                   file_tracepoints, file_next, raw_ctx_from_file, raw_ctx_free, decode_raw,
                   chunk_index, file_select_chunk, columns_new_mt)
%}
