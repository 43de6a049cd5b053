package probe

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/claudebox/claudebox/mount"
)

// PHP's command line reads its php.ini and the ini files of its
// extensions from /etc (Debian's php/<version>/cli, whose conf.d links
// into mods-available; Fedora's php.ini and php.d), where an
// administrator gives it what the sites need: a database's default login
// (mysqli.default_pw), an agent's key (newrelic.license, which New
// Relic's installer writes into every SAPI's conf.d, tideways.api_key).
// Their values have no shape a recogniser knows, so the sandbox gets
// private copies of only the directives known to hold none.

// phpDirectives are the ini directives known to hold no credential: those
// PHP 8.2's own php.ini-production and php.ini-development name, but a
// database's default login (mysqli.default_user and default_pw, odbc's),
// FTP's anonymous password (from), the session store's path
// (session.save_path, a Redis URL with its auth) and the mailer's command
// line (sendmail_path, mail.force_extra_parameters: ssmtp takes its login
// as -au USER -ap PASSWORD, which no recogniser reads as one; mail()
// reaches no mail server inside anyway); with them extension and
// zend_extension, and the bundled OPcache's JIT settings its module's ini
// file sets. Built at its first use, not at every claudebox process's
// start (the relay, the guard watcher): it was a third of what the
// binary's package initialisations keep on the heap.
var phpDirectives = sync.OnceValue(func() map[string]bool {
	directives := map[string]bool{}
	for _, d := range strings.Fields(`allow_url_fopen allow_url_include arg_separator.input arg_separator.output
	assert.active assert.bail assert.callback assert.exception assert.warning auto_append_file
	auto_detect_line_endings auto_globals_jit auto_prepend_file bcmath.scale browscap cgi.check_shebang_line
	cgi.discard_path cgi.fix_pathinfo cgi.force_redirect cgi.nph cgi.redirect_status_env cgi.rfc2616_headers
	cli_server.color curl.cainfo date.default_latitude date.default_longitude date.sunrise_zenith
	date.sunset_zenith date.timezone dba.default_handler default_charset default_mimetype default_socket_timeout
	disable_classes disable_functions display_errors display_startup_errors doc_root docref_ext docref_root
	enable_dl enable_post_data_reading engine error_append_string error_log error_prepend_string error_reporting
	exif.decode_jis_intel exif.decode_jis_motorola exif.decode_unicode_intel exif.decode_unicode_motorola
	exif.encode_jis exif.encode_unicode expose_php extension extension_dir ffi.enable ffi.preload file_uploads
	filter.default filter.default_flags gd.jpeg_ignore_warning highlight.comment highlight.default
	highlight.html highlight.keyword highlight.string html_errors iconv.input_encoding iconv.internal_encoding
	iconv.output_encoding ignore_repeated_errors ignore_repeated_source ignore_user_abort implicit_flush
	include_path input_encoding internal_encoding intl.default_locale intl.error_level intl.use_exceptions
	ldap.max_links log_errors mail.add_x_header mail.log mail.mixed_lf_and_crlf
	max_execution_time max_file_uploads max_input_nesting_level max_input_time max_input_vars
	max_multipart_body_parts mbstring.detect_order mbstring.encoding_translation mbstring.http_input
	mbstring.http_output mbstring.http_output_conv_mimetypes mbstring.internal_encoding mbstring.language
	mbstring.regex_retry_limit mbstring.regex_stack_limit mbstring.strict_detection mbstring.substitute_character
	memory_limit mysqli.allow_local_infile mysqli.allow_persistent mysqli.default_host mysqli.default_port
	mysqli.default_socket mysqli.local_infile_directory mysqli.max_links mysqli.max_persistent
	mysqli.rollback_on_cached_plink mysqlnd.collect_memory_statistics mysqlnd.collect_statistics mysqlnd.debug
	mysqlnd.log_mask mysqlnd.mempool_default_size mysqlnd.net_cmd_buffer_size mysqlnd.net_read_buffer_size
	mysqlnd.net_read_timeout mysqlnd.sha256_server_public_key odbc.allow_persistent odbc.check_persistent
	odbc.default_db odbc.defaultbinmode odbc.defaultlrl odbc.max_links odbc.max_persistent opcache.blacklist_filename
	opcache.cache_id opcache.consistency_checks opcache.dups_fix opcache.enable opcache.enable_cli
	opcache.enable_file_override opcache.error_log opcache.file_cache opcache.file_cache_consistency_checks
	opcache.file_cache_fallback opcache.file_cache_only opcache.file_update_protection opcache.force_restart_timeout
	opcache.huge_code_pages opcache.interned_strings_buffer opcache.jit opcache.jit_buffer_size opcache.lockfile_path
	opcache.log_verbosity_level opcache.max_accelerated_files opcache.max_file_size opcache.max_wasted_percentage
	opcache.memory_consumption opcache.mmap_base opcache.opt_debug_level opcache.optimization_level
	opcache.preferred_memory_model opcache.preload opcache.preload_user opcache.protect_memory
	opcache.record_warnings opcache.restrict_api opcache.revalidate_freq opcache.revalidate_path
	opcache.save_comments opcache.use_cwd opcache.validate_permission opcache.validate_root
	opcache.validate_timestamps open_basedir openssl.cafile openssl.capath output_buffering output_encoding
	output_handler pcre.backtrack_limit pcre.jit pcre.recursion_limit pdo_mysql.default_socket
	pdo_odbc.connection_pooling pgsql.allow_persistent pgsql.auto_reset_persistent pgsql.ignore_notice
	pgsql.log_notice pgsql.max_links pgsql.max_persistent phar.cache_list phar.readonly phar.require_hash
	post_max_size precision realpath_cache_size realpath_cache_ttl register_argc_argv report_memleaks
	report_zend_debug request_order sendmail_from serialize_precision session.auto_start
	session.cache_expire session.cache_limiter session.cookie_domain session.cookie_httponly
	session.cookie_lifetime session.cookie_path session.cookie_samesite session.cookie_secure session.gc_divisor
	session.gc_maxlifetime session.gc_probability session.lazy_write session.name session.referer_check
	session.save_handler session.serialize_handler session.sid_bits_per_character session.sid_length
	session.trans_sid_hosts session.trans_sid_tags session.upload_progress.cleanup session.upload_progress.enabled
	session.upload_progress.freq session.upload_progress.min_freq session.upload_progress.name
	session.upload_progress.prefix session.use_cookies session.use_only_cookies session.use_strict_mode
	session.use_trans_sid short_open_tag smtp_port soap.wsdl_cache_dir soap.wsdl_cache_enabled
	soap.wsdl_cache_limit soap.wsdl_cache_ttl sqlite3.defensive sqlite3.extension_dir sys_temp_dir
	syslog.facility syslog.filter syslog.ident sysvshm.init_mem tidy.clean_output tidy.default_config
	unserialize_callback_func unserialize_max_depth upload_max_filesize upload_tmp_dir user_agent user_dir
	user_ini.cache_ttl user_ini.filename variables_order xmlrpc_error_number xmlrpc_errors zend.assertions
	zend.enable_gc zend.exception_ignore_args zend.exception_string_param_max_len zend.multibyte
	zend.script_encoding zend_extension zlib.output_compression zlib.output_compression_level zlib.output_handler`) {
		directives[d] = true
	}
	return directives
})

// phpIni rebuilds a PHP ini file from its sections ([PHP], [HOST=…]) and
// its lines of phpDirectives, each value up to the comment PHP's parser
// ends it at (a ; outside double quotes); no comment enters.
func phpIni(b []byte) (string, bool) {
	// Line by line in place: a Scanner's buffer and a string for each
	// line were most of what a launch allocated for /etc/php's copies
	// (170 of 220 KB), each fresh page a fault.
	var out strings.Builder
	for len(b) > 0 {
		var raw []byte
		raw, b, _ = bytes.Cut(b, []byte("\n"))
		// The bound a bufio.Scanner reads lines to: a file with a longer
		// one is left out.
		if len(raw) >= bufio.MaxScanTokenSize {
			return "", false
		}
		line := bytes.TrimSpace(raw)
		switch {
		case len(line) == 0 || line[0] == ';' || line[0] == '#':
		case line[0] == '[' && line[len(line)-1] == ']':
			out.Write(line)
			out.WriteByte('\n')
		default:
			name, value, ok := bytes.Cut(line, []byte("="))
			name = bytes.TrimSpace(name)
			if ok && phpDirectives()[string(name)] {
				out.Write(name)
				out.WriteString(" = ")
				out.Write(bytes.TrimSpace(phpValue(value)))
				out.WriteByte('\n')
			}
		}
	}
	return out.String(), true
}

// phpValue is an ini line's value before its comment.
func phpValue(v []byte) []byte {
	quoted := false
	for i, c := range v {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			return v[:i]
		}
	}
	return v
}

// phpConfigDirs are the directories of mount.EtcShown that hold PHP's
// ini files, given as private copies (phpDirCopy).
var phpConfigDirs = []string{"php/*/cli", "php/*/mods-available", "php.d"}

// phpDirCopy reads the PHP configuration directory dir (in the system
// configuration etc) for its private copy: each ini file every user may
// read rebuilt by phpIni (one that still may hold a credential left
// out), directories every user may enter, links made again as they are
// (conf.d's into mods-available). What else lies there is left out
// (leftOut, paths in etc). ok is false where dir is no directory to copy
// or cannot be read whole within the bounds of ~/.claude's copies.
func phpDirCopy(etc, dir string) (c mount.DirCopy, leftOut []string, ok bool) {
	out := func(full string) copyFate {
		rel, _ := filepath.Rel(etc, full)
		leftOut = append(leftOut, rel)
		return leaveOut
	}
	w := treeCopy{DirCopy: mount.DirCopy{Path: dir}, policy: copyPolicy{
		levels: dirCopyDepth,
		dir: func(full string, fi fs.FileInfo, _ []os.DirEntry, whole bool) copyFate {
			switch {
			case fi.Mode().Perm()&0o005 != 0o005:
				return out(full)
			case !whole:
				return refuseCopy
			}
			return copyEntry
		},
		file: func(full string, fi fs.FileInfo, read func() ([]byte, error)) (mount.DirCopyEntry, copyFate) {
			if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o004 == 0 || !strings.HasSuffix(full, ".ini") {
				return mount.DirCopyEntry{}, out(full)
			}
			b, err := read()
			if err != nil {
				return mount.DirCopyEntry{}, refuseCopy
			}
			content, shown := settingsCopy(b, phpIni)
			if !shown {
				return mount.DirCopyEntry{}, out(full)
			}
			return mount.DirCopyEntry{Content: content}, copyEntry
		},
	}}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o005 != 0o005 {
		return mount.DirCopy{Path: dir}, nil, false
	}
	des, err := os.ReadDir(dir)
	if err != nil || !w.walk("", des, 0) {
		return mount.DirCopy{Path: dir}, nil, false
	}
	return w.DirCopy, leftOut, true
}
