"""Provider keys as the secret scrubber recognises them: where each provider's key starts,
the shortest word that counts, and the marker that replaces it (kb.pure.sessions.scrub applies
them).

Kept apart from the rules because the table is data that grows with every provider added,
and the scrubber's rules read better without three hundred lines of it between them.
"""

from __future__ import annotations

from attrs import frozen

KEY = "[REDACTED_KEY]"
TOKEN = "[REDACTED_TOKEN]"


@frozen
class Shape:
    """A key recognised by how it starts; `min_bytes` is the shortest word that counts."""

    provider: str
    start: str  # a regex for the opening of the key
    min_bytes: int
    marker: str = KEY
    # Keep what `start` matched and replace only the rest (a webhook URL keeps its host, so
    # the reader still sees whose webhook it was).
    keep_start: bool = False
    # Strings of which `start` cannot match without one (as a Rule's `needs`): the shapes
    # whose needs a text lacks are left out of the pattern it is scrubbed with.
    needs: tuple[str, ...] = ()


SHAPES = (
    # OpenAI (`sk-`, `sk-proj-`, `sk-svcacct-`), Anthropic (`sk-ant-api03-`), and the many
    # providers that took the same opening (DeepSeek, OpenRouter's `sk-or-v1-`).
    Shape("openai-anthropic", r"sk-", 17, needs=("sk-",)),
    # Stripe secret and restricted keys; `whsec_` is a webhook signing secret.
    Shape(
        "stripe",
        r"(?:sk|rk)_(?:live|test)_|whsec_[A-Za-z0-9]{16}",
        8,
        needs=("sk_", "rk_", "whsec_"),
    ),
    Shape("github", r"gh[pousr]_", 11, needs=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    Shape("github-fine-grained", r"github_pat_", 11, needs=("github_pat_",)),
    # GitLab personal, pipeline-trigger, deploy, runner, OAuth-app, feed and agent tokens, and
    # the older runner registration token `GR1348941`.
    Shape(
        "gitlab",
        r"gl(?:pat|ptt|dt|rt|soat|cbt|ft|imt|agent|oas)-[A-Za-z0-9_\-]{20}"
        r"|GR1348941[A-Za-z0-9_\-]{20}",
        25,
        needs=(
            "glpat-",
            "glptt-",
            "gldt-",
            "glrt-",
            "glsoat-",
            "glcbt-",
            "glft-",
            "glimt-",
            "glagent-",
            "gloas-",
            "GR1348941",
        ),
    ),
    # Slack bot, user, app-level and configuration tokens (`xoxe.xoxp-` is a refresh token).
    Shape("slack", r"xox[abeprs]-|xapp-|xoxe\.xox[bp]-", 15, needs=("xox", "xapp-")),
    # Incoming webhooks of Slack, Discord, Microsoft Teams, Zapier and IFTTT: the URL itself
    # is the credential.
    Shape(
        "webhook-url",
        r"https://(?:hooks\.slack\.com/(?:services|workflows)/"
        r"|(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/"
        r"|[A-Za-z0-9\-]+\.webhook\.office\.com/webhookb2/"
        r"|outlook\.office\.com/webhook/"
        r"|hooks\.zapier\.com/hooks/catch/"
        r"|maker\.ifttt\.com/(?:trigger|use)/)",
        50,
        keep_start=True,
        needs=("https://",),
    ),
    Shape("google", r"AIza", 17, needs=("AIza",)),
    # Google OAuth: a client secret (`GOCSPX-`), an access token (`ya29.`), a refresh token
    # (`1//0`); Firebase Cloud Messaging server keys (`AAAA...:APA91b`).
    Shape(
        "google-oauth",
        r"GOCSPX-[A-Za-z0-9_\-]{20}|ya29\.[A-Za-z0-9_\-]{20}|1//0[A-Za-z0-9_\-]{30}"
        r"|AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{20}",
        25,
        needs=("GOCSPX-", "ya29.", "1//0", ":APA91b"),
    ),
    # AWS access key ids: `AKIA` (long-term) and `ASIA` (temporary), and the rarer `ABIA`,
    # `ACCA` and `A3T` ones with their 16 characters.
    Shape(
        "aws-access-key-id",
        r"A(?:KIA|SIA)|A(?:BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}",
        16,
        needs=("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    ),
    # Azure AD (Entra) client secrets: three characters, a digit, `Q~`, then 31 to 34 more.
    Shape(
        "azure-ad-client-secret",
        r"[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31}",
        37,
        needs=("Q~",),
    ),
    # Twilio API key: `SK` and 32 hex digits (the account SID, `AC...`, is no secret).
    Shape("twilio", r"SK[0-9a-fA-F]{32}", 34, needs=("SK",)),
    # SendGrid: `SG.`, 22 characters, `.`, 43 characters.
    Shape("sendgrid", r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", 69, needs=("SG.",)),
    # Mailgun's older API keys: `key-` and 32 hex digits.
    Shape("mailgun", r"key-[0-9a-f]{32}", 36, needs=("key-",)),
    # Mailchimp: 32 hex digits and the data centre, `-us21`.
    Shape("mailchimp", r"[0-9a-f]{32}-us[0-9]{1,2}(?![0-9])", 35, needs=("-us",)),
    # Heroku platform API tokens (the older UUID keys are caught by name: HEROKU_API_KEY=).
    Shape("heroku", r"HRKU-[A-Za-z0-9_\-]{20}", 25, needs=("HRKU-",)),
    # Docker Hub personal access tokens.
    Shape("docker-hub", r"dckr_pat_[A-Za-z0-9_\-]{20}", 29, needs=("dckr_pat_",)),
    # PyPI upload tokens: a macaroon whose first bytes always encode to `AgE`.
    Shape("pypi", r"pypi-AgE[A-Za-z0-9_\-]{20}", 28, needs=("pypi-AgE",)),
    # RubyGems, NuGet and Clojars API keys.
    Shape("rubygems", r"rubygems_[0-9a-f]{48}", 57, needs=("rubygems_",)),
    Shape("nuget", r"oy2[a-z0-9]{43}", 46, needs=("oy2",)),
    Shape("clojars", r"CLOJARS_[A-Za-z0-9]{60}", 68, needs=("CLOJARS_",)),
    # DigitalOcean personal, OAuth and refresh tokens.
    Shape("digitalocean", r"do[opr]_v1_[0-9a-f]{64}", 71, needs=("_v1_",)),
    # Shopify access, custom-app, private-app and shared-secret tokens.
    Shape("shopify", r"shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}", 38, needs=("shp",)),
    # age encryption secret keys (Bech32, upper case).
    Shape("age", r"AGE-SECRET-KEY-1[0-9A-Z]{58}", 74, needs=("AGE-SECRET-KEY-1",)),
    # npm and Hugging Face: their prefixes are common words in code (`npm_config_cache`,
    # `hf_hub`), so the body's own shape is part of the rule. Hugging Face organisation
    # tokens are `api_org_`.
    Shape("npm", r"npm_[A-Za-z0-9]{36}", 40, needs=("npm_",)),
    Shape(
        "huggingface",
        r"hf_[A-Za-z0-9]{30,}|api_org_[A-Za-z0-9]{30,}",
        33,
        needs=("hf_", "api_org_"),
    ),
    # Model providers with openings of their own: Groq, Replicate, xAI, Perplexity,
    # LangSmith, Pinecone, ElevenLabs.
    Shape("groq", r"gsk_[A-Za-z0-9]{40}", 44, needs=("gsk_",)),
    Shape("replicate", r"r8_[A-Za-z0-9]{30}", 33, needs=("r8_",)),
    Shape("xai", r"xai-[A-Za-z0-9]{40}", 44, needs=("xai-",)),
    Shape("perplexity", r"pplx-[A-Za-z0-9]{40}", 45, needs=("pplx-",)),
    Shape("langsmith", r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}", 51, needs=("lsv2_",)),
    Shape("pinecone", r"pcsk_[A-Za-z0-9]{4,}_[A-Za-z0-9]{40}", 50, needs=("pcsk_",)),
    Shape("elevenlabs", r"sk_[0-9a-f]{48}", 51, needs=("sk_",)),
    # Databricks personal access tokens.
    Shape("databricks", r"dapi[0-9a-f]{32}", 36, needs=("dapi",)),
    # Linear API keys and OAuth tokens.
    Shape("linear", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}", 48, needs=("lin_",)),
    # Notion integration tokens: `ntn_`, and the older `secret_` with 43 letters or digits.
    Shape("notion", r"ntn_[A-Za-z0-9]{40}|secret_[A-Za-z0-9]{43}", 44, needs=("ntn_", "secret_")),
    # Atlassian API tokens (Jira, Confluence) and Bitbucket app passwords.
    Shape(
        "atlassian",
        r"AT(?:ATT|CTT)[A-Za-z0-9_\-=]{24}|ATBB[A-Za-z0-9]{28}",
        32,
        needs=("ATATT", "ATCTT", "ATBB"),
    ),
    # HashiCorp Vault service, batch and recovery tokens; Terraform Cloud tokens.
    Shape("hashicorp-vault", r"hv[sbr]\.[A-Za-z0-9_\-]{24}", 28, needs=("hvs.", "hvb.", "hvr.")),
    Shape(
        "terraform-cloud",
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60}",
        83,
        needs=(".atlasv1.",),
    ),
    # Tailscale auth, API, OAuth-client and webhook keys.
    Shape("tailscale", r"tskey-[A-Za-z0-9\-]{24}", 30, needs=("tskey-",)),
    # New Relic user, admin, insert, browser and other keys.
    Shape(
        "new-relic",
        r"NR(?:AK|AA|II|JS|IQ|SP)-[A-Za-z0-9]{19}",
        24,
        needs=("NRAK-", "NRAA-", "NRII-", "NRJS-", "NRIQ-", "NRSP-"),
    ),
    # Grafana service-account tokens, Grafana Cloud tokens, and the older API keys (base64 of
    # `{"k":"`).
    Shape(
        "grafana",
        r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/=]{32}|eyJrIjoi[A-Za-z0-9+/=]{40}",
        40,
        needs=("glsa_", "glc_", "eyJrIjoi"),
    ),
    # 1Password service-account tokens and account secret keys.
    Shape(
        "1password",
        r"ops_eyJ[A-Za-z0-9+/=_\-]{20}|A3-[A-Z0-9]{6}-[A-Z0-9]{5,11}-[A-Z0-9]{5}-[A-Z0-9]{5}",
        30,
        needs=("ops_eyJ", "A3-"),
    ),
    # Meta (Facebook, Instagram) access tokens and Square access tokens both open `EAA`;
    # Square's application secrets and older tokens `sq0csp-`, `sq0atp-`.
    Shape(
        "meta-square",
        r"EAA[A-Za-z0-9_\-]{30}|sq0(?:atp|csp)-[A-Za-z0-9_\-]{22}",
        29,
        needs=("EAA", "sq0"),
    ),
    # A Telegram bot token: the bot's number, `:AA`, 30 or more (also inside a `/bot...` URL).
    Shape("telegram-bot", r"(?:bot)?[0-9]{8,10}:AA[A-Za-z0-9_\-]{30}", 41, needs=(":AA",)),
    # A Discord bot token: three base64url parts, the first opening `M`, `N` or `O`.
    Shape(
        "discord-bot",
        r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}",
        59,
        needs=(".",),
    ),
    # A Twitter/X app bearer token: 22 `A`s and the rest.
    Shape("twitter-bearer", r"A{22}[A-Za-z0-9%]{30}", 52, needs=("AAAAAAAAAAAAAAAAAAAAAA",)),
    # Doppler, Dynatrace, Postman, Pulumi, Prefect, Buildkite, CircleCI, SonarQube,
    # Sentry, Artifactory, Octopus Deploy, Harness, Infracost: CI, deploy and monitoring.
    Shape("doppler", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40}", 46, needs=("dp.",)),
    Shape("dynatrace", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", 96, needs=("dt0c01.",)),
    Shape("postman", r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}", 64, needs=("PMAK-",)),
    Shape("pulumi", r"pul-[0-9a-f]{40}", 44, needs=("pul-",)),
    Shape("prefect", r"pnu_[A-Za-z0-9]{36}", 40, needs=("pnu_",)),
    Shape("buildkite", r"bkua_[0-9a-f]{40}", 45, needs=("bkua_",)),
    Shape("circleci", r"CCIPAT_[A-Za-z0-9]{22}_[0-9a-f]{40}", 70, needs=("CCIPAT_",)),
    Shape("sonarqube", r"sq[pua]_[0-9a-f]{40}", 44, needs=("sqp_", "squ_", "sqa_")),
    Shape("sentry", r"sntry[su]_[A-Za-z0-9+/=_\-]{40}", 46, needs=("sntry",)),
    Shape(
        "artifactory",
        r"AKCp[A-Za-z0-9]{60}|cmVmdGtuOjAxOj[A-Za-z0-9]{40}",
        54,
        needs=("AKCp", "cmVmdGtuOjAxOj"),
    ),
    Shape("octopus-deploy", r"API-[A-Z0-9]{26}", 30, needs=("API-",)),
    Shape(
        "harness", r"pat\.[A-Za-z0-9_\-]{22}\.[0-9a-f]{24}\.[A-Za-z0-9]{20}", 70, needs=("pat.",)
    ),
    Shape("infracost", r"ico-[A-Za-z0-9]{32}", 36, needs=("ico-",)),
    # Hosting: Supabase, Fly.io, Render, Netlify, Scalingo.
    Shape(
        "supabase",
        r"sbp_[0-9a-f]{40}|sb_secret_[A-Za-z0-9_\-]{20}",
        30,
        needs=("sbp_", "sb_secret_"),
    ),
    Shape(
        "fly",
        r"fo1_[A-Za-z0-9_\-]{40}|fm[12][ar]?_[A-Za-z0-9+/=_\-]{40}",
        44,
        needs=("fo1_", "fm1", "fm2"),
    ),
    Shape("render", r"rnd_[A-Za-z0-9]{32}", 36, needs=("rnd_",)),
    Shape("netlify", r"nfp_[A-Za-z0-9]{36}", 40, needs=("nfp_",)),
    Shape("scalingo", r"tk-us-[A-Za-z0-9_\-]{48}", 54, needs=("tk-us-",)),
    # Payments and commerce: Braintree, Plaid, Flutterwave, Duffel, Shippo.
    Shape(
        "braintree",
        r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
        60,
        needs=("access_token$",),
    ),
    Shape(
        "plaid",
        r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-",
        30,
        needs=("access-",),
    ),
    Shape("flutterwave", r"FLWSECK(?:_TEST)?-[0-9a-f]{32}-X", 42, needs=("FLWSECK",)),
    Shape("duffel", r"duffel_(?:test|live)_[A-Za-z0-9_\-=]{40}", 52, needs=("duffel_",)),
    Shape("shippo", r"shippo_(?:live|test)_[0-9a-f]{40}", 52, needs=("shippo_",)),
    # Mail and messaging: Brevo (Sendinblue), MailerSend, Resend.
    Shape("brevo", r"xkeysib-[0-9a-f]{64}-[A-Za-z0-9]{16}", 89, needs=("xkeysib-",)),
    Shape("mailersend", r"mlsn\.[0-9a-f]{64}", 69, needs=("mlsn.",)),
    Shape("resend", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", 36, needs=("re_",)),
    # Work tools: Airtable, Asana, ClickUp, Figma, Frame.io, Contentful, Typeform, Segment,
    # ReadMe, LaunchDarkly.
    Shape("airtable", r"pat[A-Za-z0-9]{14}\.[0-9a-f]{64}", 82, needs=("pat",)),
    Shape("asana", r"[0-9]/[0-9]{10,20}/[0-9]{10,20}:[0-9a-f]{32}", 50, needs=(":",)),
    Shape("clickup", r"pk_[0-9]{6,9}_[A-Z0-9]{32}", 42, needs=("pk_",)),
    Shape("figma", r"figd_[A-Za-z0-9_\-]{40}", 45, needs=("figd_",)),
    Shape("frameio", r"fio-u-[A-Za-z0-9_\-=]{64}", 70, needs=("fio-u-",)),
    Shape("contentful", r"CFPAT-[A-Za-z0-9_\-]{43}", 49, needs=("CFPAT-",)),
    Shape("typeform", r"tfp_[A-Za-z0-9_\-.]{40}", 44, needs=("tfp_",)),
    Shape("segment", r"sgp_[A-Za-z0-9]{64}", 68, needs=("sgp_",)),
    Shape("readme", r"rdme_[a-z0-9]{70}", 75, needs=("rdme_",)),
    Shape(
        "launchdarkly",
        r"(?:api|sdk)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        40,
        needs=("api-", "sdk-"),
    ),
    # Cloud consoles with openings of their own: Alibaba access key ids, Yandex API keys and
    # OAuth tokens, Mapbox secret tokens, Adafruit IO keys.
    Shape("alibaba", r"LTAI[A-Za-z0-9]{20}", 24, needs=("LTAI",)),
    Shape(
        "yandex",
        r"AQVN[A-Za-z0-9_\-]{35}|y[0-3]_[A-Za-z0-9_\-]{55}",
        39,
        needs=("AQVN", "y0_", "y1_", "y2_", "y3_"),
    ),
    Shape("mapbox", r"sk\.eyJ[A-Za-z0-9_\-]{20}", 26, needs=("sk.eyJ",)),
    Shape("adafruit", r"aio_[A-Za-z0-9]{28}", 32, needs=("aio_",)),
    # A BIP-32 extended private key (a whole wallet).
    Shape("bitcoin-xprv", r"xprv[A-Za-z0-9]{100}", 104, needs=("xprv",)),
    Shape("jwt", r"eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.", 0, TOKEN, needs=("eyJ",)),
)
