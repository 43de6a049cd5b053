package credential

import (
	"bytes"
	"sync"
)

// serviceShape is how a known service's token looks: its prefix, then a
// body of at least least and at most most (0: no bound) of the bytes
// body allows, holding mark where the service writes one.
type serviceShape struct {
	prefix      string
	body        func(byte) bool
	least, most int
	mark        string
}

func isAlnum(c byte) bool { return isWordByte(c) && c != '_' }

func isHexByte(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

func isUpperAlnum(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' }

func isBase64Byte(c byte) bool { return isTokenByte(c) || c == '+' || c == '/' || c == '=' }

func isDottedToken(c byte) bool { return isTokenByte(c) || c == '.' }

func isPaddedToken(c byte) bool { return isTokenByte(c) || c == '=' }

// serviceShapes are the tokens of the services a Claude Code user keeps
// beside it that TokenPrefixes does not know, each by its prefix and the
// length and alphabet of what follows, as the service issues it: an
// identifier that begins so (hf_hub_download, sk-learn, key-value) has
// none of these shapes. Found whatever name they are given, in prose
// too (a CLAUDE.md's "HF token: hf_…", a skill's config.json's "groq":
// "gsk_…" crossed).
var serviceShapes = []serviceShape{
	{prefix: "hf_", body: isAlnum, least: 30, most: 40},                   // Hugging Face
	{prefix: "sk-", body: isTokenByte, least: 40, mark: "T3BlbkFJ"},       // OpenAI, every kind
	{prefix: "sk-", body: isAlnum, least: 32, most: 64},                   // OpenAI's first keys, DeepSeek's, Moonshot's
	{prefix: "sk-or-v1-", body: isHexByte, least: 64, most: 64},           // OpenRouter
	{prefix: "sk-svcacct-", body: isTokenByte, least: 32},                 // OpenAI
	{prefix: "sk-admin-", body: isTokenByte, least: 32},                   // OpenAI
	{prefix: "sk_", body: isHexByte, least: 48, most: 48},                 // ElevenLabs
	{prefix: "sk_test_", body: isAlnum, least: 20},                        // Stripe
	{prefix: "rk_test_", body: isAlnum, least: 20},                        // Stripe
	{prefix: "whsec_", body: isBase64Byte, least: 24},                     // Stripe's webhooks
	{prefix: "gsk_", body: isAlnum, least: 48, most: 60},                  // Groq
	{prefix: "xai-", body: isAlnum, least: 60},                            // xAI
	{prefix: "pplx-", body: isAlnum, least: 40},                           // Perplexity
	{prefix: "tvly-", body: isTokenByte, least: 24, most: 64},             // Tavily
	{prefix: "fc-", body: isHexByte, least: 32, most: 32},                 // Firecrawl
	{prefix: "r8_", body: isAlnum, least: 30, most: 45},                   // Replicate
	{prefix: "nvapi-", body: isTokenByte, least: 40},                      // NVIDIA
	{prefix: "lsv2_pt_", body: isWordByte, least: 40},                     // LangSmith
	{prefix: "lsv2_sk_", body: isWordByte, least: 40},                     // LangSmith
	{prefix: "ntn_", body: isAlnum, least: 40, most: 60},                  // Notion
	{prefix: "secret_", body: isAlnum, least: 43, most: 43},               // Notion's first
	{prefix: "lin_api_", body: isAlnum, least: 32, most: 48},              // Linear
	{prefix: "lin_oauth_", body: isAlnum, least: 32},                      // Linear
	{prefix: "ATATT3x", body: isPaddedToken, least: 100},                  // Atlassian
	{prefix: "figd_", body: isTokenByte, least: 30},                       // Figma
	{prefix: "dckr_pat_", body: isTokenByte, least: 24, most: 40},         // Docker Hub
	{prefix: "dop_v1_", body: isHexByte, least: 64, most: 64},             // DigitalOcean
	{prefix: "doo_v1_", body: isHexByte, least: 64, most: 64},             // DigitalOcean
	{prefix: "dor_v1_", body: isHexByte, least: 64, most: 64},             // DigitalOcean
	{prefix: "shpat_", body: isHexByte, least: 32, most: 32},              // Shopify
	{prefix: "shpca_", body: isHexByte, least: 32, most: 32},              // Shopify
	{prefix: "shppa_", body: isHexByte, least: 32, most: 32},              // Shopify
	{prefix: "shpss_", body: isHexByte, least: 32, most: 32},              // Shopify
	{prefix: "PMAK-", body: isTokenByte, least: 50, most: 70},             // Postman
	{prefix: "SG.", body: isDottedToken, least: 60, most: 70, mark: "."},  // SendGrid
	{prefix: "key-", body: isHexByte, least: 32, most: 32},                // Mailgun
	{prefix: "tskey-", body: isTokenByte, least: 30},                      // Tailscale
	{prefix: "glsa_", body: isWordByte, least: 32, most: 50},              // Grafana
	{prefix: "glc_", body: isBase64Byte, least: 32},                       // Grafana Cloud
	{prefix: "glptt-", body: isTokenByte, least: 20},                      // GitLab's pipeline triggers
	{prefix: "glrt-", body: isTokenByte, least: 20},                       // GitLab's runners
	{prefix: "dp.st.", body: isDottedToken, least: 40},                    // Doppler
	{prefix: "dp.ct.", body: isDottedToken, least: 40},                    // Doppler
	{prefix: "dp.sa.", body: isDottedToken, least: 40},                    // Doppler
	{prefix: "ops_", body: isDottedToken, least: 100},                     // 1Password's service accounts
	{prefix: "xapp-", body: isTokenByte, least: 40},                       // Slack's apps
	{prefix: "ya29.", body: isTokenByte, least: 40},                       // Google's OAuth
	{prefix: "sntrys_", body: isBase64Byte, least: 40},                    // Sentry
	{prefix: "sntryu_", body: isHexByte, least: 64, most: 64},             // Sentry
	{prefix: "nfp_", body: isAlnum, least: 36},                            // Netlify
	{prefix: "rnd_", body: isAlnum, least: 24},                            // Render
	{prefix: "phx_", body: isAlnum, least: 30},                            // PostHog
	{prefix: "sbp_", body: isHexByte, least: 40, most: 40},                // Supabase
	{prefix: "sb_secret_", body: isTokenByte, least: 20},                  // Supabase
	{prefix: "napi_", body: isAlnum, least: 40},                           // Neon
	{prefix: "pscale_tkn_", body: isTokenByte, least: 32},                 // PlanetScale
	{prefix: "pscale_pw_", body: isTokenByte, least: 32},                  // PlanetScale
	{prefix: "rubygems_", body: isHexByte, least: 48, most: 48},           // RubyGems
	{prefix: "pul-", body: isHexByte, least: 40, most: 40},                // Pulumi
	{prefix: "CFPAT-", body: isTokenByte, least: 40},                      // Contentful
	{prefix: "sq0atp-", body: isTokenByte, least: 22},                     // Square
	{prefix: "sq0csp-", body: isTokenByte, least: 40},                     // Square
	{prefix: "hvb.", body: isTokenByte, least: 40},                        // Vault's batch tokens
	{prefix: "AGE-SECRET-KEY-1", body: isUpperAlnum, least: 58, most: 58}, // age's identity
}

// serviceStarts indexes serviceShapes by the first two bytes of their
// prefixes, a group's number past one (0: no shape begins so), and
// tokenBytes says which bytes a token's word holds: at each word's
// start one look says whether a shape may begin there (a bundle of
// 16 MiB has millions of words).
var serviceStarts = sync.OnceValues(func() (*[1 << 16]uint8, [][]int) {
	var starts [1 << 16]uint8
	var groups [][]int
	for n, s := range serviceShapes {
		i := int(s.prefix[0])<<8 | int(s.prefix[1])
		if starts[i] == 0 {
			groups = append(groups, nil)
			starts[i] = uint8(len(groups))
		}
		groups[starts[i]-1] = append(groups[starts[i]-1], n)
	}
	return &starts, groups
})

// tokenBytes is isTokenByte as a table.
var tokenBytes = sync.OnceValue(func() *[256]bool {
	var t [256]bool
	for c := range 256 {
		t[c] = isTokenByte(byte(c))
	}
	return &t
})

// serviceToken says data holds a known service's token by its shape
// (serviceShapes), a word of its own, or a Telegram bot's
// (telegramBotToken). It reads each byte once: a bundle of 16 MiB's
// words cost it 25 ms on a 2-core machine at load 12.
//
// A shape's body may run past its word (a base64's +, a dotted token's
// .): where a shape of no longest body (most 0) was not found, a start of
// it within the body it read, read to the same end, is no token either,
// and is passed over (ends); read again from each, a line of "dp.st."
// said again and again cost the square of its length, 64 KiB 8 s.
func serviceToken(data []byte) bool {
	starts, groups := serviceStarts()
	token := tokenBytes()
	ends := make([]int, len(serviceShapes))
	for at := 0; at+1 < len(data); {
		if !token[data[at]] {
			at++
			continue
		}
		if g := starts[int(data[at])<<8|int(data[at+1])]; g != 0 {
			for _, i := range groups[g-1] {
				if at < ends[i] {
					continue
				}
				found, end := serviceShaped(data, at, serviceShapes[i])
				if found {
					return true
				}
				if serviceShapes[i].most == 0 {
					ends[i] = end
				}
			}
		}
		for at++; at < len(data) && token[data[at]]; at++ {
		}
	}
	return telegramBotToken(data)
}

// serviceShaped says the word at data[at:] has shape s: its prefix,
// then a body of s's bytes, of s's length, holding s's mark, then no
// token's byte; a body neither with a digit nor in both cases (words)
// is none. end is where the body it read ends: past s.most, it reads no
// further.
func serviceShaped(data []byte, at int, s serviceShape) (found bool, end int) {
	if !bytes.HasPrefix(data[at:], []byte(s.prefix)) {
		return false, at
	}
	body := data[at+len(s.prefix):]
	if s.most > 0 {
		body = body[:min(len(body), s.most+1)]
	}
	n := tokenRun(body, s.body)
	end = at + len(s.prefix) + n
	if n < s.least || s.most > 0 && n > s.most || n < len(body) && isTokenByte(body[n]) {
		return false, end
	}
	body = body[:n]
	if s.mark != "" && !bytes.Contains(body, []byte(s.mark)) {
		return false, end
	}
	return bytes.ContainsAny(body, "0123456789") || bytes.ContainsAny(body, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && bytes.ContainsAny(body, "abcdefghijklmnopqrstuvwxyz"), end
}

// telegramBotToken says data holds a Telegram bot's token, as BotFather
// issues it: the bot's number (8 to 10 digits), a colon and 35 of a
// token's bytes, beginning AA, a word of its own. A script keeps it
// apart from the API's URL (api.telegram.org/bot{TOKEN}), which alone
// was known.
func telegramBotToken(data []byte) bool {
	for pos := range occurrences(data, ":AA") {
		digits := 0
		for digits < pos && digits <= 10 && data[pos-1-digits] >= '0' && data[pos-1-digits] <= '9' {
			digits++
		}
		if digits < 8 || digits > 10 || pos-digits > 0 && isTokenByte(data[pos-digits-1]) {
			continue
		}
		rest := data[pos+1:]
		if n := tokenRun(rest, isTokenByte); n == 35 && bytes.ContainsAny(rest[:n], "0123456789") {
			return true
		}
	}
	return false
}
