#!/bin/sh
# mail-guide.sh: docs/mail-operations.md as a script, for a fresh Debian 12. Each step_N below is
# printed in the guide word for word (tests/test_mail_guide.py compares them), and CI runs this
# script (scripts/check_mail_guide.py), so what the guide says is what is run.
#
#   scripts/mail-guide.sh [STEP ...]      every step in order, or only those named (1 2 ...)
#   scripts/mail-guide.sh stop            stops a private pair (MAIL_PREFIX below)
#
# Run it as root. The settings, from the environment (the guide's example values are the defaults):
#   DOMAIN     pbem.example.org  the domain players reply to (PBEM_MAIL_DOMAIN)
#   MX         mx.example.org    this machine's name
#   PBEM       /srv/pbem         the checkout, with its .venv
#   PBEM_ENV   /etc/pbem/env     the service's settings file (KEY=value lines; README, "Production")
#   PIPE_USER  pbem              the user the service runs as, and Postfix's pipe with it
#   DOOR       pipe              how Postfix hands the domain's mail to pbem: pipe (scripts/pbem-pipe,
#                                which hands it to the listener), listener (SMTP straight to the
#                                listener) or imap (LMTP into Dovecot, which pbem polls)
#   LISTENER   127.0.0.1:2525    the SMTP listener (manage.py smtpd, the pbem-smtpd unit)
#   SMTP_PORT  25                Postfix's SMTP port, which the service sends through too
#   LMTP_PORT  2424              Dovecot's LMTP port (on 127.0.0.1)
#   IMAP_PORT  143               Dovecot's IMAP port (on 127.0.0.1)
#   MAIL_PREFIX (empty)          empty: the machine's own Postfix and Dovecot (/etc/postfix,
#                                /etc/dovecot, /var/mail/pbem, /var/log). A folder: a private Postfix
#                                and Dovecot under it, with their own configuration, queue, mail
#                                folder, log and ports (CI's way: nothing of the machine's mail
#                                system is read or changed; the users of step 2 are the machine's).
set -eu

settings() {
  DOMAIN=${DOMAIN:-pbem.example.org}
  MX=${MX:-mx.example.org}
  PBEM=${PBEM:-/srv/pbem}
  PBEM_ENV=${PBEM_ENV:-/etc/pbem/env}
  PIPE_USER=${PIPE_USER:-pbem}
  DOOR=${DOOR:-pipe}
  LISTENER=${LISTENER:-127.0.0.1:2525}
  SMTP_PORT=${SMTP_PORT:-25}
  LMTP_PORT=${LMTP_PORT:-2424}
  IMAP_PORT=${IMAP_PORT:-143}
  if [ -n "${MAIL_PREFIX:-}" ]; then
    POSTFIX=$MAIL_PREFIX/postfix DOVECOT=$MAIL_PREFIX/dovecot MAILDIR=$MAIL_PREFIX/mail LOGDIR=$MAIL_PREFIX/log
  else
    POSTFIX=/etc/postfix DOVECOT=/etc/dovecot MAILDIR=/var/mail/pbem LOGDIR=/var/log
  fi
}

# KEY VALUE: sets one line of the settings file (the key's old line, if any, goes).
setting() {
  sed -i "/^$1=/d" "$PBEM_ENV"
  echo "$1=$2" >> "$PBEM_ENV"
}

step_1() {
  echo "postfix postfix/main_mailer_type select Internet Site" | debconf-set-selections
  echo "postfix postfix/mailname string $MX" | debconf-set-selections
  DEBIAN_FRONTEND=noninteractive apt-get install -y postfix dovecot-imapd dovecot-lmtpd
}

step_2() {
  id -u "$PIPE_USER" >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin "$PIPE_USER"
  id -u vmail >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin vmail
  install -d -o vmail -g vmail -m 0700 "$MAILDIR"
}

step_3() {
  setting PBEM_MAIL_DOMAIN "$DOMAIN"
  setting PBEM_PIPE_HANDOFF "$LISTENER"
  setting EMAIL_BACKEND django.core.mail.backends.smtp.EmailBackend
  setting EMAIL_HOST 127.0.0.1
  setting EMAIL_PORT "$SMTP_PORT"
  chgrp "$PIPE_USER" "$PBEM_ENV"
  chmod 640 "$PBEM_ENV"
}

step_4() {
  postconf -c "$POSTFIX" -e "myhostname = $MX" \
      'recipient_delimiter = +' \
      "relay_domains = $DOMAIN" \
      "transport_maps = hash:$POSTFIX/transport" \
      'smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination' \
      'pbem_destination_recipient_limit = 1' \
      'pbem_time_limit = 120s' \
      "maillog_file_prefixes = $LOGDIR" \
      "maillog_file = $LOGDIR/postfix.log"
  postconf -c "$POSTFIX" -Me "pbem/unix = pbem unix - n n - - pipe flags=R user=$PIPE_USER argv=$PBEM/scripts/pbem-pipe --env-file $PBEM_ENV --recipient \${original_recipient}"
  case $DOOR in
    pipe) echo "$DOMAIN pbem:" ;;
    listener) echo "$DOMAIN smtp:[${LISTENER%:*}]:${LISTENER##*:}" ;;
    imap) echo "$DOMAIN lmtp:inet:127.0.0.1:$LMTP_PORT" ;;
  esac > "$POSTFIX/transport"
  postmap -c "$POSTFIX" "$POSTFIX/transport"
}

step_5() {
  cat > "$DOVECOT/conf.d/99-pbem.conf" <<EOF
protocols = imap lmtp
mail_location = maildir:$MAILDIR/%d
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
passdb {
  driver = passwd-file
  args = scheme=SHA512-CRYPT username_format=%u $DOVECOT/pbem.passwd
}
userdb {
  driver = static
  args = uid=vmail gid=vmail home=$MAILDIR/%d allow_all_users=yes
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = $LMTP_PORT
  }
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $IMAP_PORT
  }
}
EOF
  touch "$DOVECOT/pbem.passwd"
  chown root:dovecot "$DOVECOT/pbem.passwd"
  chmod 640 "$DOVECOT/pbem.passwd"
  if [ "$DOOR" = imap ]; then
    password=$(head -c 24 /dev/urandom | base64)
    echo "play@$DOMAIN:$(doveadm -c "$DOVECOT/dovecot.conf" pw -s SHA512-CRYPT -p "$password")" > "$DOVECOT/pbem.passwd"
    setting PBEM_IMAP_HOST 127.0.0.1
    setting PBEM_IMAP_PORT "$IMAP_PORT"
    setting PBEM_IMAP_SECURITY none
    setting PBEM_IMAP_USER "play@$DOMAIN"
    setting PBEM_IMAP_PASSWORD "$password"
  fi
}

step_6() {
  postfix -c "$POSTFIX" check
  if postfix -c "$POSTFIX" status 2>/dev/null; then postfix -c "$POSTFIX" reload; else postfix -c "$POSTFIX" start; fi
  if doveadm -c "$DOVECOT/dovecot.conf" reload 2>/dev/null; then :; else dovecot -c "$DOVECOT/dovecot.conf"; fi
}

# A private Postfix and Dovecot under MAIL_PREFIX: the configuration Debian's packages install
# (and the machine's own instances use), made here for instances of their own, on their own ports.
private_pair() {
  install -d -m 0755 "$MAIL_PREFIX" "$POSTFIX" "$MAIL_PREFIX/queue" "$DOVECOT/conf.d" "$MAIL_PREFIX/run" "$LOGDIR"
  install -d -o postfix -m 0755 "$MAIL_PREFIX/data"
  cat > "$POSTFIX/main.cf" <<EOF
compatibility_level = 3.6
queue_directory = $MAIL_PREFIX/queue
data_directory = $MAIL_PREFIX/data
mail_owner = postfix
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mydestination =
mynetworks = 127.0.0.0/8
local_recipient_maps =
alias_maps =
alias_database =
default_transport = error:this private instance sends no mail out
EOF
  # Debian's master.cf, but SMTP on SMTP_PORT and only the services this mail path uses.
  cat > "$POSTFIX/master.cf" <<EOF
$SMTP_PORT inet n - n - - smtpd
pickup    unix  n - n 60 1 pickup
cleanup   unix  n - n - 0 cleanup
qmgr      unix  n - n 300 1 qmgr
rewrite   unix  - - n - - trivial-rewrite
bounce    unix  - - n - 0 bounce
defer     unix  - - n - 0 bounce
trace     unix  - - n - 0 bounce
verify    unix  - - n - 1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n - - proxymap
showq     unix  n - n - - showq
error     unix  - - n - - error
retry     unix  - - n - - error
discard   unix  - - n - - discard
anvil     unix  - - n - 1 anvil
scache    unix  - - n - 1 scache
smtp      unix  - - n - - smtp
lmtp      unix  - - n - - lmtp
postlog   unix-dgram n - n - 1 postlogd
EOF
  cat > "$DOVECOT/dovecot.conf" <<EOF
instance_name = pbem-private-$IMAP_PORT
base_dir = $MAIL_PREFIX/run
state_dir = $MAIL_PREFIX/run
listen = 127.0.0.1
ssl = no
log_path = $LOGDIR/dovecot.log
service imap-login {
  chroot =
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
!include conf.d/*.conf
EOF
}

stop_private_pair() {
  postfix -c "$POSTFIX" stop || true
  doveadm -c "$DOVECOT/dovecot.conf" stop || true
}

main() {
  settings
  if [ "$(id -u)" != 0 ]; then echo "mail-guide.sh: run it as root" >&2; exit 1; fi
  if [ "${1:-}" = stop ]; then
    [ -n "${MAIL_PREFIX:-}" ] || { echo "mail-guide.sh: stop is for a private pair (MAIL_PREFIX)" >&2; exit 1; }
    stop_private_pair
    return
  fi
  if [ "$*" != 1 ] && [ ! -w "$PBEM_ENV" ]; then
    echo "mail-guide.sh: write the settings file $PBEM_ENV first (README, \"Production\"; PBEM_ENV)" >&2
    exit 1
  fi
  for n in ${*:-1 2 3 4 5 6}; do
    case $n in
      1|2|3|4|5|6) ;;
      *) echo "mail-guide.sh: no step $n (steps 1 to 6, or stop)" >&2; exit 1 ;;
    esac
    if [ "$n" = 1 ] && dpkg -s postfix dovecot-imapd dovecot-lmtpd >/dev/null 2>&1; then
      echo "== step 1: postfix, dovecot-imapd and dovecot-lmtpd are installed"
      continue
    fi
    if [ "$n" != 1 ] && [ -n "${MAIL_PREFIX:-}" ] && [ ! -e "$POSTFIX/main.cf" ]; then
      echo "== a private Postfix and Dovecot under $MAIL_PREFIX"
      private_pair
    fi
    echo "== step $n"
    "step_$n"
  done
}

main "$@"
