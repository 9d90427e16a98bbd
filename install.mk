# make install / make uninstall (included by the Makefile).
#
#   make install PREFIX=/opt/kcal [DESTDIR=/staging]
#
# installs what `make` builds in the layout kcal looks for (common/exe.h,
# cmd/report_cmd.c): PREFIX/bin/kcal; PREFIX/lib/libkcoll.{a,so},
# libkcoll_pmpi.so (the LD_PRELOAD interposer) and pkgconfig/kcoll.pc;
# PREFIX/include/kcoll.h; the MPI programs kcal launches in
# PREFIX/libexec/kcal/; the report's gnuplot scripts and the params files
# kcal embeds in PREFIX/share/kcal/, the examples' inputs (examples/: the
# hpcc input of README's kcal run example) in PREFIX/share/kcal/examples/. `make uninstall` with the same PREFIX
# removes exactly those files and kcal's own directories; tests/install.sh
# checks both. kcoll.pc requires the MPI library's pkg-config module
# (KCOLL_PC_REQUIRES, Open MPI's ompi-c), so `pkg-config --cflags --libs
# kcoll` is all an application needs.
PREFIX  ?= /usr/local
DESTDIR ?=
KCOLL_PC_REQUIRES ?= ompi-c
KCAL_VERSION_STR := $(shell sed -n 's/^\#define KCAL_VERSION "\(.*\)"/\1/p' cmd/kcal.c)

inst_bin     := $(DESTDIR)$(PREFIX)/bin
inst_lib     := $(DESTDIR)$(PREFIX)/lib
inst_pc      := $(inst_lib)/pkgconfig
inst_inc     := $(DESTDIR)$(PREFIX)/include
inst_libexec := $(DESTDIR)$(PREFIX)/libexec/kcal
inst_share   := $(DESTDIR)$(PREFIX)/share/kcal
INSTALLED_HELPERS := kcal-bench-mpi kcal-vcoll-bench kcal-sm-bench
INSTALLED_GP      := $(notdir $(wildcard reports/*.gp))
INSTALLED_PARAMS  := $(notdir $(PARAMS_FILES))
INSTALLED_EXAMPLES := hpccinf.txt

.PHONY: install uninstall
install: all
	@$(if $(filter openmpi,$(MPI)),:,$(error make install installs the Open MPI build; MPICH's (MPI=$(MPI)) is not installed yet: use it from the tree, docs/mpi.md))
	@mkdir -p $(BUILD)
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' \
	  'includedir=$${prefix}/include' '' 'Name: kcoll' \
	  'Description: contention-aware single-copy (Linux CMA) MPI collectives' \
	  'Version: $(KCAL_VERSION_STR)' 'Requires: $(KCOLL_PC_REQUIRES)' \
	  'Libs: -L$${libdir} -lkcoll' 'Libs.private: -lm' \
	  'Cflags: -I$${includedir}' > $(BUILD)/kcoll.pc
	install -d $(inst_bin) $(inst_lib) $(inst_pc) $(inst_inc) $(inst_libexec) $(inst_share)/reports $(inst_share)/examples
	install -m 755 kcal $(inst_bin)/kcal
	install -m 644 algos/libkcoll.a $(inst_lib)/libkcoll.a
	install -m 755 algos/libkcoll.so $(PMPI_LIB) $(inst_lib)/
	install -m 644 $(BUILD)/kcoll.pc $(inst_pc)/kcoll.pc
	install -m 644 algos/kcoll.h $(inst_inc)/kcoll.h
	install -m 755 $(addprefix $(BUILD)/,$(INSTALLED_HELPERS)) $(inst_libexec)/
	install -m 644 $(addprefix reports/,$(INSTALLED_GP)) $(inst_share)/reports/
	install -m 644 $(PARAMS_FILES) $(inst_share)/
	install -m 644 $(addprefix examples/,$(INSTALLED_EXAMPLES)) $(inst_share)/examples/

uninstall:
	rm -f $(inst_bin)/kcal $(inst_lib)/libkcoll.a $(inst_lib)/libkcoll.so \
	  $(inst_lib)/libkcoll_pmpi.so $(inst_pc)/kcoll.pc $(inst_inc)/kcoll.h \
	  $(addprefix $(inst_libexec)/,$(INSTALLED_HELPERS)) \
	  $(addprefix $(inst_share)/reports/,$(INSTALLED_GP)) \
	  $(addprefix $(inst_share)/,$(INSTALLED_PARAMS)) \
	  $(addprefix $(inst_share)/examples/,$(INSTALLED_EXAMPLES))
	rmdir $(inst_libexec) $(inst_share)/reports $(inst_share)/examples $(inst_share) 2>/dev/null || true
