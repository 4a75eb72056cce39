# make install / make uninstall, included by the top-level Makefile (which
# provides B and the rule for $(B)/oomctl).
#
#   make install   [PREFIX=/usr/local] [DESTDIR=] [SBINDIR=...] ...
#   make uninstall (the same variables: it removes exactly what install put)
#
# The Debian package (debian/rules, make deb) runs
#   make install DESTDIR=debian/oomctl PREFIX=/usr SYSTEMDUNITDIR=/lib/systemd/system
# Only files are copied: no systemctl (a package's postinst enables the unit;
# a DESTDIR install must not touch the running system), never
# /etc/oomctl.conf (the administrator writes it; the example goes to the
# docs), and nothing test-only ($(B)/tests/ is not in the list).

PREFIX         ?= /usr/local
SBINDIR        ?= $(PREFIX)/sbin
MANDIR         ?= $(PREFIX)/share/man
BASHCOMPDIR    ?= $(PREFIX)/share/bash-completion/completions
# systemd looks for units in /usr/local/lib/systemd/system too.
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR         ?= $(PREFIX)/share/doc/oomctl
# The policy contract, for policies built outside the tree:
# #include <oomctl/policy.bpf.h> (it includes its neighbour oomctl.h).
INCLUDEDIR     ?= $(PREFIX)/include
INSTALL        ?= install

# Every man page, in the section its name ends with: a new page needs no edit.
MAN_PAGES := $(sort $(wildcard man/*.[1-8]))

# The one list both targets use: SOURCE:DESTINATION:MODE. A SOURCE ending
# in .in is installed with @SBINDIR@ replaced by the binary's directory.
# The completion is oomctl.bash, not oomctl: the name of systemd-oomd's
# completion for its /usr/bin/oomctl (completion/oomctl.bash says how the
# two share the command name).
INSTALL_FILES = \
	$(B)/oomctl:$(SBINDIR)/oomctl:0755 \
	$(foreach m,$(MAN_PAGES),$(m):$(MANDIR)/man$(patsubst .%,%,$(suffix $(m)))/$(notdir $(m)):0644) \
	completion/oomctl.bash:$(BASHCOMPDIR)/oomctl.bash:0644 \
	systemd/oomctl.service.in:$(SYSTEMDUNITDIR)/oomctl.service:0644 \
	etc/oomctl.conf.example:$(DOCDIR)/examples/oomctl.conf:0644 \
	examples/policies/newest.bpf.c:$(DOCDIR)/examples/newest.bpf.c:0644 \
	bpf-policies/policy.bpf.h:$(INCLUDEDIR)/oomctl/policy.bpf.h:0644 \
	bpf-policies/oomctl.h:$(INCLUDEDIR)/oomctl/oomctl.h:0644 \
	README.md:$(DOCDIR)/README.md:0644 \
	CHANGELOG.md:$(DOCDIR)/CHANGELOG.md:0644

# The list is split on blanks and colons (with globbing off: set -f), and
# SBINDIR goes into a sed replacement: refuse a directory holding any of
# those (or | and &) rather than install to a mangled path.
INSTALL_CHECK_DIRS = \
	for d in "$(DESTDIR)" "$(SBINDIR)" "$(MANDIR)" "$(BASHCOMPDIR)" \
		"$(SYSTEMDUNITDIR)" "$(DOCDIR)" "$(INCLUDEDIR)"; do \
		case $$d in *[[:space:]:\|\&]*) \
			echo "$@: directory '$$d' contains a blank, ':', '|' or '&'" >&2; exit 2;; \
		esac; \
	done

.PHONY: install uninstall

# The unit is written straight into DESTDIR (no generated file in $(B)
# that a `sudo make install` would leave root-owned, or that two installs
# with different PREFIXes would share).
install: $(B)/oomctl
	@set -efo pipefail; $(INSTALL_CHECK_DIRS); \
	for f in $(INSTALL_FILES); do \
		IFS=: read -r src dst mode <<<"$$f"; \
		case $$src in \
		*.in) echo "sed @SBINDIR@=$(SBINDIR) $$src | install -m $$mode $(DESTDIR)$$dst"; \
			sed 's|@SBINDIR@|$(SBINDIR)|g' "$$src" | \
			$(INSTALL) -D -m "$$mode" /dev/stdin "$(DESTDIR)$$dst" ;; \
		*) echo "install -m $$mode $$src $(DESTDIR)$$dst"; \
			$(INSTALL) -D -m "$$mode" "$$src" "$(DESTDIR)$$dst" ;; \
		esac; \
	done

# Shared directories (sbin, man8, ...) stay; our doc directory goes once
# empty (rmdir refuses otherwise: something else was put there).
uninstall:
	@set -ef; $(INSTALL_CHECK_DIRS); \
	for f in $(INSTALL_FILES); do \
		IFS=: read -r src dst mode <<<"$$f"; \
		if [ -e "$(DESTDIR)$$dst" ] || [ -L "$(DESTDIR)$$dst" ]; then \
			echo "rm $(DESTDIR)$$dst"; rm -f "$(DESTDIR)$$dst"; \
		fi; \
	done; \
	for d in "$(DESTDIR)$(DOCDIR)/examples" "$(DESTDIR)$(DOCDIR)" \
		 "$(DESTDIR)$(INCLUDEDIR)/oomctl"; do \
		if [ -d "$$d" ] && rmdir "$$d" 2>/dev/null; then echo "rmdir $$d"; fi; \
	done
