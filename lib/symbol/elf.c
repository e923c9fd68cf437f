/* SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause */
/* Reading one ELF file's function symbols (and its separate debug file). */
#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "symbol/sym_internal.h"

static char *demangle(const char *name);

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* An open ELF file with what the loader learnt of it. */
struct elf_file {
	int fd;
	Elf *elf;
	uint64_t size;
	GElf_Ehdr eh;
	Elf_Scn *symtab, *dynsym;
	GElf_Shdr symtab_sh, dynsym_sh;
	uint8_t build_id[64];
	size_t build_id_len;
	char debuglink[256];
	uint32_t debuglink_crc;
	bool has_debuglink;
};

struct load_err {
	int code; /* PM_SYM_DIAG_* */
	int err;
	char msg[256];
};

static int fail(struct load_err *le, int code, int err, const char *what)
{
	le->code = code;
	le->err = err;
	snprintf(le->msg, sizeof(le->msg), "%s", what);
	return -1;
}

static void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Does a section's file image lie inside the file? */
static bool section_fits(const struct elf_file *f, const GElf_Shdr *sh)
{
	return sh->sh_type == SHT_NOBITS || (sh->sh_offset <= f->size && sh->sh_size <= f->size - sh->sh_offset);
}

static void read_notes(struct elf_file *f, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data || !data->d_buf)
		return;
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    pm__fits(name_off, 4, data->d_size) &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(f->build_id) &&
		    pm__fits(desc_off, nh.n_descsz, data->d_size)) {
			memcpy(f->build_id, (const char *)data->d_buf + desc_off, nh.n_descsz);
			f->build_id_len = nh.n_descsz;
			return;
		}
		off = next;
	}
}

static void read_debuglink(struct elf_file *f, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *p;
	size_t n, crc_off;

	if (!data || !data->d_buf || data->d_size < 6)
		return;
	p = data->d_buf;
	n = strnlen(p, data->d_size);
	if (n == 0 || n >= sizeof(f->debuglink) || n == data->d_size)
		return;
	crc_off = (n + 1 + 3) & ~(size_t)3;
	if (!pm__fits(crc_off, 4, data->d_size))
		return;
	memcpy(f->debuglink, p, n);
	f->debuglink[n] = '\0';
	f->debuglink_crc = pm__ld32(p + crc_off, f->eh.e_ident[EI_DATA] == ELFDATA2MSB);
	f->has_debuglink = true;
}

/* When libelf refuses a file with the ELF magic, tell a truncated file from a
 * corrupt one by reading the raw header: does a table it declares end past
 * the end of the file? */
static bool raw_truncated(int fd, uint64_t size)
{
	unsigned char h[64];
	bool is64, be;
	uint64_t phoff, shoff, phn, shn, phes, shes;
	size_t need;

	if (pread(fd, h, EI_NIDENT, 0) != EI_NIDENT)
		return true;
	is64 = h[EI_CLASS] == ELFCLASS64;
	be = h[EI_DATA] == ELFDATA2MSB;
	need = is64 ? 64 : 52;
	if (size < need || pread(fd, h, need, 0) != (ssize_t)need)
		return true;
	if (is64) {
		phoff = pm__ld64(h + 32, be);
		shoff = pm__ld64(h + 40, be);
		phes = pm__ld16(h + 54, be);
		phn = pm__ld16(h + 56, be);
		shes = pm__ld16(h + 58, be);
		shn = pm__ld16(h + 60, be);
	} else {
		phoff = pm__ld32(h + 28, be);
		shoff = pm__ld32(h + 32, be);
		phes = pm__ld16(h + 42, be);
		phn = pm__ld16(h + 44, be);
		shes = pm__ld16(h + 46, be);
		shn = pm__ld16(h + 48, be);
	}
	if (phn && (phoff > size || phn * phes > size - phoff))
		return true;
	if (shoff && (shoff > size || (shn ? shn : 1) * shes > size - shoff))
		return true;
	return false;
}

static int elf_file_scan(struct elf_file *f, struct load_err *le);

/* Open and check an ELF file; on failure fill le and return -1. */
static int elf_file_open(struct elf_file *f, const char *path, struct load_err *le)
{
	unsigned char magic[SELFMAG];
	struct stat st;
	char what[200];

	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		int e = errno;

		snprintf(what, sizeof(what), "cannot open: %s", strerror(e));
		return fail(le, PM_SYM_DIAG_MISSING, -e, what);
	}
	if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode))
		return fail(le, PM_SYM_DIAG_NOT_ELF, -PM_ERR_FORMAT, "not a regular file");
	f->size = (uint64_t)st.st_size;
	if (pread(f->fd, magic, SELFMAG, 0) != SELFMAG || memcmp(magic, ELFMAG, SELFMAG) != 0) {
		if (f->size < SELFMAG && f->size > 0 && memcmp(magic, ELFMAG, (size_t)f->size) == 0)
			return fail(le, PM_SYM_DIAG_TRUNCATED, -PM_ERR_TRUNCATED,
				    "ELF file truncated inside its identification");
		return fail(le, PM_SYM_DIAG_NOT_ELF, -PM_ERR_FORMAT, "not an ELF file (no ELF magic)");
	}
	if (f->size < EI_NIDENT)
		return fail(le, PM_SYM_DIAG_TRUNCATED, -PM_ERR_TRUNCATED,
			    "ELF file truncated inside its identification");
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		if ((f->fd >= 0 && raw_truncated(f->fd, f->size)))
			return fail(le, PM_SYM_DIAG_TRUNCATED, -PM_ERR_TRUNCATED,
				    "file ends inside the tables its ELF header declares");
		snprintf(what, sizeof(what), "libelf cannot read it: %s", elf_errmsg(-1));
		return fail(le, PM_SYM_DIAG_CORRUPT, -PM_ERR_CORRUPT, what);
	}
	return elf_file_scan(f, le);
}

/* An ELF image in memory (the vDSO): no file behind it. */
static int elf_file_open_mem(struct elf_file *f, char *image, size_t size, struct load_err *le)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->size = size;
	if (size < EI_NIDENT || memcmp(image, ELFMAG, SELFMAG) != 0)
		return fail(le, PM_SYM_DIAG_NOT_ELF, -PM_ERR_FORMAT, "not an ELF image (no ELF magic)");
	f->elf = elf_memory(image, size);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF)
		return fail(le, PM_SYM_DIAG_CORRUPT, -PM_ERR_CORRUPT, "libelf cannot read the image");
	return elf_file_scan(f, le);
}

/* The checks and the section walk once libelf has the file. */
static int elf_file_scan(struct elf_file *f, struct load_err *le)
{
	size_t shnum = 0, phnum = 0, shstrndx = 0;
	size_t ehsize;
	Elf_Scn *scn = NULL;
	char what[200];

	ehsize = gelf_getclass(f->elf) == ELFCLASS32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
	if (f->size < ehsize)
		return fail(le, PM_SYM_DIAG_TRUNCATED, -PM_ERR_TRUNCATED,
			    "ELF file truncated inside its header");
	if (!gelf_getehdr(f->elf, &f->eh)) {
		if ((f->fd >= 0 && raw_truncated(f->fd, f->size)))
			return fail(le, PM_SYM_DIAG_TRUNCATED, -PM_ERR_TRUNCATED,
				    "file ends inside the tables its ELF header declares");
		snprintf(what, sizeof(what), "bad ELF header: %s", elf_errmsg(-1));
		return fail(le, PM_SYM_DIAG_CORRUPT, -PM_ERR_CORRUPT, what);
	}
	/* libelf clamps table sizes to the file; the raw header tells the truth. */
	if ((f->fd >= 0 && raw_truncated(f->fd, f->size)))
		return fail(le, PM_SYM_DIAG_TRUNCATED, -PM_ERR_TRUNCATED,
			    "file ends inside the tables its ELF header declares");
	if (elf_getphdrnum(f->elf, &phnum) != 0 || elf_getshdrnum(f->elf, &shnum) != 0) {
		if ((f->fd >= 0 && raw_truncated(f->fd, f->size)))
			return fail(le, PM_SYM_DIAG_TRUNCATED, -PM_ERR_TRUNCATED,
				    "file ends inside the tables its ELF header declares");
		snprintf(what, sizeof(what), "bad ELF header: %s", elf_errmsg(-1));
		return fail(le, PM_SYM_DIAG_CORRUPT, -PM_ERR_CORRUPT, what);
	}
	if (phnum && (f->eh.e_phoff > f->size ||
		      (uint64_t)phnum * f->eh.e_phentsize > f->size - f->eh.e_phoff))
		return fail(le, PM_SYM_DIAG_TRUNCATED, -PM_ERR_TRUNCATED,
			    "file ends inside its program headers");
	if (shnum && (f->eh.e_shoff > f->size ||
		      (uint64_t)shnum * f->eh.e_shentsize > f->size - f->eh.e_shoff))
		return fail(le, PM_SYM_DIAG_TRUNCATED, -PM_ERR_TRUNCATED,
			    "file ends inside its section headers");
	if (shnum && elf_getshdrstrndx(f->elf, &shstrndx) != 0)
		shstrndx = 0;
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_NOTE) {
			if (!section_fits(f, &sh)) {
				snprintf(what, sizeof(what),
					 "file (%" PRIu64 " bytes) ends inside section %zu", f->size,
					 elf_ndxscn(scn));
				return fail(le, PM_SYM_DIAG_TRUNCATED, -PM_ERR_TRUNCATED, what);
			}
		}
		if (sh.sh_type == SHT_SYMTAB && !f->symtab) {
			f->symtab = scn;
			f->symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !f->dynsym) {
			f->dynsym = scn;
			f->dynsym_sh = sh;
		} else if (sh.sh_type == SHT_NOTE && !f->build_id_len) {
			read_notes(f, scn);
		} else if (sh.sh_type == SHT_PROGBITS && shstrndx &&
			   (name = elf_strptr(f->elf, shstrndx, sh.sh_name)) != NULL &&
			   strcmp(name, ".gnu_debuglink") == 0 && section_fits(f, &sh)) {
			read_debuglink(f, scn);
		}
	}
	/* A symbol table with its data elsewhere (a stripped debug file) is none. */
	if (f->symtab && f->symtab_sh.sh_type == SHT_SYMTAB && f->symtab_sh.sh_size == 0)
		f->symtab = NULL;
	return 0;
}

static int read_segments(struct pm__dso *d, struct elf_file *f)
{
	size_t phnum = 0;

	if (elf_getphdrnum(f->elf, &phnum) != 0 || phnum == 0)
		return 0;
	d->segs = pm__calloc(phnum, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nsegs].vaddr = ph.p_vaddr;
		d->segs[d->nsegs].off = ph.p_offset;
		d->segs[d->nsegs].filesz = ph.p_filesz;
		d->segs[d->nsegs].memsz = ph.p_memsz;
		d->nsegs++;
	}
	return 0;
}

/* Collect the function symbols of one symbol table section into rv. */
static int read_symbols(struct pm__dso *d, struct elf_file *f, Elf_Scn *scn, const GElf_Shdr *sh,
			struct pm__rawvec *rv, size_t *nfunc)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, shnum = 0;
	int rc;

	if (!data || !data->d_buf || !sh->sh_entsize)
		return 0;
	elf_getshdrnum(f->elf, &shnum);
	n = data->d_size / (sh->sh_entsize ? sh->sh_entsize : 1);
	for (size_t i = 1; i < n; i++) {
		struct pm__rawsym r = {0};
		GElf_Sym sym;
		GElf_Shdr ssh;
		const char *name;
		char *dm;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_shndx >= shnum)
			continue;
		name = elf_strptr(f->elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		r.start = sym.st_value;
		r.size = sym.st_size;
		r.limit = UINT64_MAX;
		if (gelf_getshdr(elf_getscn(f->elf, sym.st_shndx), &ssh) && ssh.sh_addr + ssh.sh_size > ssh.sh_addr)
			r.limit = ssh.sh_addr + ssh.sh_size;
		r.prio = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 0 : 1; /* perf: non-weak, then global */
		dm = demangle(name);
		if (dm)
			name = dm;
		rc = pm__symtab_addstr(&d->tab, name, strlen(name), &r.name);
		if (rc == 0)
			rc = pm__rawvec_push(rv, &r, name);
		free(dm);
		if (rc)
			return rc;
		(*nfunc)++;
	}
	return 0;
}

/* ---- C++ names, as perf prints them ---- */

/* perf 6.1 demangles C++ symbols without parameters (DMGL_NO_OPTS unless
 * -v): "ns::f(int) const" is "ns::f".  The demangler is the C++ runtime's
 * __cxa_demangle (an extern "C" function of libstdc++), looked up at run
 * time: in the process already, else from libstdc++.so.6.  Without it,
 * names stay mangled; nothing else depends on it. */
typedef char *(*pm_cxa_demangle_fn)(const char *, char *, size_t *, int *);
static pm_cxa_demangle_fn pm_cxa_demangle;
static pthread_once_t pm_cxa_once = PTHREAD_ONCE_INIT;

static void pm_cxa_init(void)
{
	void *h;

	pm_cxa_demangle = (pm_cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (pm_cxa_demangle)
		return;
	h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		pm_cxa_demangle = (pm_cxa_demangle_fn)dlsym(h, "__cxa_demangle");
}

/* Index of the '(' that opens the parameter list ending the name, or -1. */
static ptrdiff_t params_start(const char *d, size_t n)
{
	int depth = 0;

	/* trailing qualifiers of a member function */
	while (n > 0 && d[n - 1] != ')') {
		char c = d[n - 1];

		if (c != ' ' && c != '&' && !(c >= 'a' && c <= 'z'))
			return -1;
		n--;
	}
	for (size_t i = n; i-- > 0;) {
		if (d[i] == ')')
			depth++;
		else if (d[i] == '(' && --depth == 0)
			return (ptrdiff_t)i;
	}
	return -1;
}

/* The name perf shows for a mangled symbol, in a malloc'd string; NULL
 * when it is not a C++ name or cannot be demangled. */
static char *demangle(const char *name)
{
	char *d;
	ptrdiff_t p;
	size_t start = 0;
	int st = 0, depth = 0;

	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	pthread_once(&pm_cxa_once, pm_cxa_init);
	if (!pm_cxa_demangle || !(d = pm_cxa_demangle(name, NULL, NULL, &st)) || st != 0)
		return NULL;
	p = params_start(d, strlen(d));
	if (p > 0)
		d[p] = 0;
	/* A template function's return type stands before its name: drop what
	 * precedes the last space outside <> and (), unless it is "operator". */
	for (size_t i = 0; d[i]; i++) {
		if (d[i] == '<' || d[i] == '(')
			depth++;
		else if ((d[i] == '>' || d[i] == ')') && depth > 0)
			depth--;
		else if (d[i] == ' ' && depth == 0 &&
			 !(i >= 8 && strncmp(d + i - 8, "operator", 8) == 0))
			start = i + 1;
	}
	if (start)
		memmove(d, d + start, strlen(d + start) + 1);
	return d;
}

/* ---- separate debug files ---- */

static uint32_t crc32_file(int fd, bool *ok)
{
	uint32_t table[256], crc = 0xffffffffu;
	unsigned char buf[65536];
	ssize_t n;
	off_t pos = 0;

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
	*ok = true;
	while ((n = pread(fd, buf, sizeof(buf), pos)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
		pos += n;
	}
	if (n < 0)
		*ok = false;
	return crc ^ 0xffffffffu;
}

/* Try a candidate debug file: usable when it opens as ELF with a .symtab. */
static bool try_debug(struct elf_file *dbg, const char *path, const struct elf_file *main_f,
		      bool check_crc)
{
	struct load_err le;

	if (elf_file_open(dbg, path, &le) != 0 || !dbg->symtab) {
		elf_file_close(dbg);
		return false;
	}
	if (main_f->build_id_len && dbg->build_id_len &&
	    (dbg->build_id_len != main_f->build_id_len ||
	     memcmp(dbg->build_id, main_f->build_id, dbg->build_id_len) != 0)) {
		elf_file_close(dbg);
		return false;
	}
	if (check_crc) {
		bool ok;
		uint32_t crc = crc32_file(dbg->fd, &ok);

		if (!ok || crc != main_f->debuglink_crc) {
			elf_file_close(dbg);
			return false;
		}
	}
	return true;
}

static bool find_debug_file(pm_sym *s, const struct pm__dso *d, const char *opened,
			    const struct elf_file *main_f, struct elf_file *dbg, struct pm__buf *found)
{
	struct pm__buf b = {0};
	bool ok = false;

	if (main_f->build_id_len) {
		pm__buf_printf(&b, "%s/.build-id/%02x/", s->debug_dir, main_f->build_id[0]);
		for (size_t i = 1; i < main_f->build_id_len; i++)
			pm__buf_printf(&b, "%02x", main_f->build_id[i]);
		pm__buf_printf(&b, ".debug");
		ok = b.data && try_debug(dbg, b.data, main_f, false);
	}
	if (!ok && main_f->has_debuglink) {
		const char *slash = strrchr(opened, '/');
		int odir = slash ? (int)(slash - opened) : 0;
		const char *oslash = strrchr(d->path, '/');
		int pdir = oslash ? (int)(oslash - d->path) : 0;

		for (int k = 0; k < 3 && !ok; k++) {
			b.len = 0;
			if (k == 0)
				pm__buf_printf(&b, "%.*s/%s", odir, opened, main_f->debuglink);
			else if (k == 1)
				pm__buf_printf(&b, "%.*s/.debug/%s", odir, opened, main_f->debuglink);
			else
				pm__buf_printf(&b, "%s%.*s/%s", s->debug_dir, pdir, d->path,
					       main_f->debuglink);
			if (!b.data || strcmp(b.data, opened) == 0)
				continue;
			ok = try_debug(dbg, b.data, main_f, true);
		}
	}
	if (ok)
		pm__buf_append(found, b.data, strlen(b.data) + 1);
	pm__buf_free(&b);
	return ok;
}

/* ---- PLT entries: name@plt ---- */

/* Find a section by name; its header in *sh. */
static Elf_Scn *section_named(struct elf_file *f, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx = 0;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(f->elf, &shstrndx) != 0 || !shstrndx)
		return NULL;
	while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(f->elf, shstrndx, sh->sh_name);
		if (name && strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

/* One "name@plt" symbol per PLT slot, from the jump-slot relocations of
 * .rela.plt (.rel.plt) in slot order, as perf synthesizes them.  Slot
 * layouts: x86-64 and i386 16-byte entries after a 16-byte PLT0 (or from the
 * start of .plt.sec when the binary has IBT's second PLT), AArch64 16-byte
 * entries after a 32-byte PLT0.  Other architectures get none.  A slot
 * whose relocation names no symbol (an IRELATIVE ifunc slot) is "@plt". */
static int read_plt(struct pm__dso *d, struct elf_file *f, struct pm__rawvec *rv)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rscn, *pscn, *dscn;
	Elf_Data *rdata, *ddata;
	uint64_t base, hdr, ent = 16, nrel;
	bool is_rela = true;
	int rc;

	switch (f->eh.e_machine) {
	case EM_X86_64:
	case EM_386:
		hdr = 16;
		break;
	case EM_AARCH64:
		hdr = 32;
		break;
	default:
		return 0;
	}
	rscn = section_named(f, ".rela.plt", &rsh);
	if (!rscn) {
		rscn = section_named(f, ".rel.plt", &rsh);
		is_rela = false;
	}
	if (!rscn || (rsh.sh_type != (is_rela ? SHT_RELA : SHT_REL)) || !rsh.sh_entsize ||
	    !section_fits(f, &rsh))
		return 0;
	pscn = section_named(f, ".plt.sec", &psh);
	if (pscn && (f->eh.e_machine == EM_X86_64 || f->eh.e_machine == EM_386)) {
		hdr = 0;
	} else {
		pscn = section_named(f, ".plt", &psh);
		if (!pscn)
			return 0;
	}
	dscn = elf_getscn(f->elf, rsh.sh_link);
	if (!dscn || !gelf_getshdr(dscn, &dsh) || !section_fits(f, &dsh))
		return 0;
	rdata = elf_getdata(rscn, NULL);
	ddata = elf_getdata(dscn, NULL);
	if (!rdata || !ddata)
		return 0;
	base = psh.sh_addr;
	nrel = rdata->d_size / rsh.sh_entsize;
	for (uint64_t i = 0; i < nrel; i++) {
		struct pm__rawsym r = {0};
		struct pm__buf nb = {0};
		GElf_Sym sym;
		uint64_t info;
		const char *name;

		if (is_rela) {
			GElf_Rela rel;

			if (!gelf_getrela(rdata, (int)i, &rel))
				break;
			info = rel.r_info;
		} else {
			GElf_Rel rel;

			if (!gelf_getrel(rdata, (int)i, &rel))
				break;
			info = rel.r_info;
		}
		if (hdr + (i + 1) * ent > psh.sh_size)
			break; /* more relocations than slots: the layout is not the assumed one */
		/* A slot without a symbol (an IRELATIVE ifunc slot) is "@plt", as perf 6.1 names it. */
		name = "";
		if (GELF_R_SYM(info) && gelf_getsym(ddata, (int)GELF_R_SYM(info), &sym)) {
			name = elf_strptr(f->elf, dsh.sh_link, sym.st_name);
			if (!name)
				name = "";
		}
		if (pm__buf_printf(&nb, "%s@plt", name) != 0)
			return -ENOMEM;
		r.start = base + hdr + i * ent;
		r.size = ent;
		r.limit = base + psh.sh_size;
		r.prio = 0;
		rc = pm__symtab_addstr(&d->tab, nb.data, strlen(nb.data), &r.name);
		if (rc == 0)
			rc = pm__rawvec_push(rv, &r, nb.data);
		pm__buf_free(&nb);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the vDSO ---- */

/* This process's own vDSO image (a copy) and its size, from /proc/self/maps:
 * the vDSO of the running kernel, the same for every process of this ABI. */
static char *own_vdso(size_t *size)
{
	FILE *m = fopen("/proc/self/maps", "re");
	char line[512];
	char *img = NULL;

	if (!m)
		return NULL;
	while (fgets(line, sizeof(line), m)) {
		unsigned long long lo, hi;

		if (!strstr(line, "[vdso]") || sscanf(line, "%llx-%llx", &lo, &hi) != 2 || hi <= lo ||
		    hi - lo > (64u << 20))
			continue;
		img = malloc((size_t)(hi - lo));
		if (img) {
			memcpy(img, (const void *)(uintptr_t)lo, (size_t)(hi - lo));
			*size = (size_t)(hi - lo);
		}
		break;
	}
	fclose(m);
	return img;
}

/* The vDSO's symbols: from perf's build-id cache (~/.debug/[vdso]/<id>/vdso,
 * or $PERF_BUILDID_DIR) when the recording names its build id, else from
 * this process's own image when the recording is of this kernel. */
static void vdso_load(pm_sym *s, struct pm__dso *d)
{
	struct pm__rawvec rv = {0};
	struct elf_file f;
	struct load_err le = {0};
	struct pm__buf path = {0};
	char *img = NULL;
	size_t nfunc = 0, size = 0;
	bool opened = false;
	int rc = 0;

	d->state = PM__DSO_FAILED;
	f.fd = -1;
	f.elf = NULL;
	if (s->vdso_build_id) {
		const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

		if (dir && *dir)
			pm__buf_printf(&path, "%s/[vdso]/%s/vdso", dir, s->vdso_build_id);
		else if (home && *home)
			pm__buf_printf(&path, "%s/.debug/[vdso]/%s/vdso", home, s->vdso_build_id);
		if (path.data && elf_file_open(&f, path.data, &le) == 0)
			opened = true;
		else
			elf_file_close(&f);
	}
	if (!opened && s->local_kernel && (img = own_vdso(&size)) != NULL) {
		if (elf_file_open_mem(&f, img, size, &le) == 0)
			opened = true;
		else
			elf_file_close(&f);
	}
	if (!opened) {
		pm__sym_diag(s, d->path, PM_SYM_DIAG_MISSING, -ENOENT,
			     "no vDSO image: not in the build-id cache%s", s->local_kernel ? "" :
			     ", and the recording is of another kernel than this machine's");
		goto out;
	}
	rc = read_segments(d, &f);
	if (rc == 0 && f.symtab)
		rc = read_symbols(d, &f, f.symtab, &f.symtab_sh, &rv, &nfunc);
	else if (rc == 0 && f.dynsym)
		rc = read_symbols(d, &f, f.dynsym, &f.dynsym_sh, &rv, &nfunc);
	if (rc == 0)
		rc = pm__symtab_build(&d->tab, &rv, 0);
	if (rc) {
		pm__sym_diag(s, d->path, PM_SYM_DIAG_CORRUPT, rc, "cannot load symbols: %s", pm_strerror(rc));
		pm__symtab_free(&d->tab);
	} else if (!d->tab.n) {
		pm__sym_diag(s, d->path, PM_SYM_DIAG_NO_SYMBOLS, 0, "no function symbols in the vDSO image");
	} else {
		d->state = PM__DSO_LOADED;
	}
out:
	free(rv.v);
	elf_file_close(&f);
	free(img);
	pm__buf_free(&path);
}

/* ---- loading ---- */

void pm__dso_load(pm_sym *s, struct pm__dso *d)
{
	struct pm__rawvec rv = {0};
	struct elf_file f, dbg;
	struct load_err le = {0};
	struct pm__buf opened = {0}, dbgpath = {0};
	size_t nfunc = 0;
	int rc;

	if (strcmp(d->path, "[vdso]") == 0) {
		vdso_load(s, d);
		return;
	}
	d->state = PM__DSO_FAILED;
	dbg.fd = -1;
	dbg.elf = NULL;
	if (pm__buf_printf(&opened, "%s%s", s->sysroot, d->path) != 0) {
		pm__sym_diag(s, d->path, PM_SYM_DIAG_CORRUPT, -ENOMEM, "out of memory");
		return;
	}
	if (elf_file_open(&f, opened.data, &le) != 0) {
		pm__sym_diag(s, d->path, le.code, le.err, "%s", le.msg);
		goto out;
	}
	rc = read_segments(d, &f);
	if (rc)
		goto oom;
	if (f.symtab) {
		rc = read_symbols(d, &f, f.symtab, &f.symtab_sh, &rv, &nfunc);
	} else if (!(s->flags & PM_SYM_OPT_NO_DEBUG_FILES) &&
		   find_debug_file(s, d, opened.data, &f, &dbg, &dbgpath)) {
		rc = read_symbols(d, &dbg, dbg.symtab, &dbg.symtab_sh, &rv, &nfunc);
		if (rc == 0)
			pm__sym_diag(s, d->path, PM_SYM_DIAG_DEBUG_FILE, 0,
				     "symbols read from separate debug file %s", dbgpath.data);
	} else if (f.dynsym) {
		rc = read_symbols(d, &f, f.dynsym, &f.dynsym_sh, &rv, &nfunc);
		if (rc == 0 && nfunc)
			pm__sym_diag(s, d->path, PM_SYM_DIAG_STRIPPED, 0,
				     "stripped (no .symtab, no debug file found): %zu exported functions from .dynsym only",
				     nfunc);
	}
	if (rc == 0)
		rc = read_plt(d, &f, &rv);
	if (rc)
		goto oom;
	rc = pm__symtab_build(&d->tab, &rv, 0);
	if (rc)
		goto oom;
	if (!d->tab.n) {
		pm__sym_diag(s, d->path, PM_SYM_DIAG_NO_SYMBOLS, 0,
			     "no function symbols (no .symtab, .dynsym or debug file with any)");
		goto out;
	}
	d->state = PM__DSO_LOADED;
	goto out;
oom:
	pm__sym_diag(s, d->path, PM_SYM_DIAG_CORRUPT, rc, "cannot load symbols: %s", pm_strerror(rc));
	pm__symtab_free(&d->tab);
out:
	free(rv.v);
	elf_file_close(&dbg);
	if (f.fd >= 0 || f.elf)
		elf_file_close(&f);
	pm__buf_free(&opened);
	pm__buf_free(&dbgpath);
}

/* ---- line tables (.debug_line) ---- */

/* The bytes of a debug section by name, decompressed when it is
 * SHF_COMPRESSED (libelf's elf_compress(), which has zlib): 0 and
 * *data NULL when the file has no such section; -1 when it cannot be read
 * (reason in what). */
static int debug_section(struct elf_file *f, const char *name, const uint8_t **data, size_t *len,
			 char *what, size_t wlen)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(f, name, &sh);
	Elf_Data *d;

	*data = NULL;
	*len = 0;
	if (!scn || sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
		return 0;
	if (!section_fits(f, &sh)) {
		snprintf(what, wlen, "file (%" PRIu64 " bytes) ends inside %s", f->size, name);
		return -1;
	}
	if (sh.sh_flags & SHF_COMPRESSED) {
		GElf_Chdr ch;

		/* zlib cannot expand more than 1032:1: a larger claimed size is a
		 * lie that would make libelf allocate it */
		if (!gelf_getchdr(scn, &ch) || ch.ch_type != ELFCOMPRESS_ZLIB ||
		    ch.ch_size / 1032 > sh.sh_size || ch.ch_size > ((uint64_t)1 << 32)) {
			snprintf(what, wlen, "compressed %s: not zlib, or a decompressed size (%" PRIu64
				 " bytes) impossible for its %" PRIu64 " compressed bytes",
				 name, gelf_getchdr(scn, &ch) ? (uint64_t)ch.ch_size : 0,
				 (uint64_t)sh.sh_size);
			return -1;
		}
		if (elf_compress(scn, 0, 0) < 0) {
			snprintf(what, wlen, "compressed %s cannot be decompressed: %s", name,
				 elf_errmsg(-1));
			return -1;
		}
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf) {
		snprintf(what, wlen, "%s cannot be read: %s", name, elf_errmsg(-1));
		return -1;
	}
	*data = d->d_buf;
	*len = d->d_size;
	return 0;
}

/* Read f's line table into d; 1 when f has none, 0 when read, -1 on a
 * diagnostic already given. */
static int lines_from(pm_sym *s, struct pm__dso *d, struct elf_file *f)
{
	struct pm__dwarf_secs secs = {0};
	char what[256], err[200];
	int bad;

	if (f->eh.e_type != ET_EXEC && f->eh.e_type != ET_DYN)
		return 1; /* an object file's line table needs its relocations */
	if (debug_section(f, ".debug_line", &secs.line, &secs.line_len, what, sizeof(what)) != 0 ||
	    (secs.line &&
	     (debug_section(f, ".debug_line_str", &secs.line_str, &secs.line_str_len, what,
			    sizeof(what)) != 0 ||
	      debug_section(f, ".debug_str", &secs.str, &secs.str_len, what, sizeof(what)) != 0 ||
	      debug_section(f, ".debug_info", &secs.info, &secs.info_len, what, sizeof(what)) != 0 ||
	      debug_section(f, ".debug_abbrev", &secs.abbrev, &secs.abbrev_len, what,
			    sizeof(what)) != 0))) {
		pm__sym_diag(s, d->path, PM_SYM_DIAG_BAD_LINES, -PM_ERR_CORRUPT, "no line numbers: %s",
			     what);
		return -1;
	}
	if (!secs.line)
		return 1;
	secs.be = f->eh.e_ident[EI_DATA] == ELFDATA2MSB;
	bad = pm__dwarf_lines_parse(&secs, &d->lines, err, sizeof(err));
	if (bad < 0) {
		pm__sym_diag(s, d->path, PM_SYM_DIAG_BAD_LINES, bad, "no line numbers: %s",
			     pm_strerror(bad));
		return -1;
	}
	if (bad > 0)
		pm__sym_diag(s, d->path, PM_SYM_DIAG_BAD_LINES, -PM_ERR_CORRUPT,
			     "%d malformed .debug_line unit%s dropped (their addresses have no line), the first: %s",
			     bad, bad == 1 ? "" : "s", err);
	return 0;
}

void pm__dso_load_lines(pm_sym *s, struct pm__dso *d)
{
	struct elf_file f, dbg;
	struct load_err le = {0};
	struct pm__buf opened = {0}, dbgpath = {0};
	int rc;

	d->lstate = PM__DSO_FAILED;
	if (d->state == PM__DSO_SPECIAL || strcmp(d->path, "[vdso]") == 0)
		return;
	f.fd = dbg.fd = -1;
	f.elf = dbg.elf = NULL;
	if (pm__buf_printf(&opened, "%s%s", s->sysroot, d->path) != 0)
		return;
	/* The symbol load has said what is wrong with a file that does not open. */
	if (elf_file_open(&f, opened.data, &le) != 0)
		goto out;
	rc = lines_from(s, d, &f);
	if (rc == 1 && !(s->flags & PM_SYM_OPT_NO_DEBUG_FILES) &&
	    find_debug_file(s, d, opened.data, &f, &dbg, &dbgpath))
		rc = lines_from(s, d, &dbg);
	if (rc == 0)
		d->lstate = PM__DSO_LOADED;
out:
	elf_file_close(&dbg);
	elf_file_close(&f);
	pm__buf_free(&opened);
	pm__buf_free(&dbgpath);
}
