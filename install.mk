# make install / make uninstall, included by the top-level Makefile.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]      make uninstall (same vars)
#
# A Debian package would run: make install DESTDIR=debian/oomctl PREFIX=/usr
# SYSTEMDUNITDIR=/lib/systemd/system. Nothing here touches the running
# system beyond copying files (no systemctl: a package's postinst does that),
# /etc/oomctl.conf is the administrator's and never installed, and nothing
# test-only (build/tests/) is.

PREFIX         ?= /usr/local
SBINDIR        ?= $(PREFIX)/sbin
MANDIR         ?= $(PREFIX)/share/man
BASHCOMPDIR    ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR         ?= $(PREFIX)/share/doc/oomctl
INSTALL        ?= install

MAN_PAGES := $(wildcard man/*.[1-8])

# SOURCE:DESTINATION:MODE, one list for both targets.
INSTALL_FILES = \
	$(B)/oomctl:$(SBINDIR)/oomctl:0755 \
	$(foreach m,$(MAN_PAGES),$(m):$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)):0644) \
	completion/oomctl.bash:$(BASHCOMPDIR)/oomctl:0644 \
	$(B)/oomctl.service:$(SYSTEMDUNITDIR)/oomctl.service:0644 \
	etc/oomctl.conf.example:$(DOCDIR)/examples/oomctl.conf:0644 \
	README.md:$(DOCDIR)/README.md:0644 \
	CHANGELOG.md:$(DOCDIR)/CHANGELOG.md:0644

# The unit names the installed binary.
$(B)/oomctl.service: systemd/oomctl.service.in FORCE
	@mkdir -p $(@D)
	@sed 's|@SBINDIR@|$(SBINDIR)|g' $< >$@.tmp && \
		{ cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@; }

.PHONY: install uninstall
install: $(B)/oomctl $(B)/oomctl.service
	@set -e; for f in $(INSTALL_FILES); do \
		IFS=: read -r src dst mode <<<"$$f"; \
		echo "install $$src -> $(DESTDIR)$$dst"; \
		$(INSTALL) -D -m "$$mode" "$$src" "$(DESTDIR)$$dst"; \
	done

uninstall:
	@for f in $(INSTALL_FILES); do \
		IFS=: read -r src dst mode <<<"$$f"; \
		if [ -e "$(DESTDIR)$$dst" ]; then echo "rm $(DESTDIR)$$dst"; rm -f "$(DESTDIR)$$dst"; fi; \
	done; \
	rmdir "$(DESTDIR)$(DOCDIR)/examples" "$(DESTDIR)$(DOCDIR)" 2>/dev/null || true
