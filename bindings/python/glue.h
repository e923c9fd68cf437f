/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/*
 * The C side of the Python binding.  SWIG wraps these functions (see
 * profileme.i); each returns a new Python object, or NULL with a Python
 * exception set (profileme.Error, an OSError carrying the errno or library
 * code and the library's message).  Bulk work (pmpy_columns_read) releases
 * the GIL.
 */
#ifndef PMPY_GLUE_H
#define PMPY_GLUE_H

#include <Python.h>

#include <profileme/profileme.h>


int pmpy_init(PyObject *module);


PyObject *pmpy_file_callchains(pm_file *f, int event);
PyObject *pmpy_file_callchain_frames(pm_file *f, int event);
PyObject *pmpy_symbolize(pm_file *f, PyObject *pids, PyObject *ips, PyObject *modes, PyObject *times,
			 const char *symfs,
			 const char *kallsyms, const char *path);
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




#endif
