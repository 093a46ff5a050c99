// Package service is the application layer of the areas not yet moved into
// slices (contact lists' deletion), the builder of the slices that need
// what it holds (the campaign and audience slices' use cases get its job
// queue, the campaign slice's the recipient slice's invitations, the
// audience slice's the contact-list code, the recipient slice's its
// mailer and page URLs, the webhook slice's its keys and sender), and the
// job runner the worker and the local queue call. It speaks domain
// types (shared/gifting) and returns domain errors (gifting.Code); the HTTP
// adapter (shared/httpapi) decodes, calls it and encodes, and the storage
// adapter (shared/dynamo) implements the store interfaces it declares.
// Neither adapter calls back into the other.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/contactimport"
	"github.com/giftcampaign/service/shared/erasure"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/sandbox"
	"github.com/giftcampaign/service/shared/webhook"
	"github.com/giftcampaign/service/shared/webhooks"
	"github.com/giftcampaign/service/shared/wire"
)

// Store is everything the use cases need from storage: one small interface
// per concern, so a use case's dependencies read off its file.
type Store interface {
	recipient.Store
	campaign.Store
	audience.Store
	webhook.Store
	contact.Store
	fulfilment.Secrets
	giftcodes.Store
	erasure.Store
	contactimport.Store
	sandbox.Store
}

// Config holds what the use cases need besides the store.
type Config struct {
	// PublicBaseURL is where recipients' landing and claim pages live.
	PublicBaseURL string
	// Logger receives structured logs of background work; nil means
	// slog.Default(). A request's own logger travels in its context
	// (WithLogger).
	Logger *slog.Logger
	// Jobs receives background work (launches, audience builds). Nil
	// means work is refused with an internal error.
	Jobs jobs.Queue
	// Mailer sends recipients' emails. Nil means no mail provider:
	// add-recipient reports emailSent false and every email stays
	// scheduled.
	Mailer mail.Mailer
	// Webhooks says which endpoints webhooks may go to.
	Webhooks webhooks.Policy
	// Secrets seals webhook signing secrets before they are stored and
	// opens them to sign. Nil means no key: creating or rotating a
	// webhook fails, and so does a delivery signed with a sealed secret.
	Secrets Secrets
	// Codes seals digital gifts' codes on upload and opens them for their
	// recipients' pages, in the codes' own encryption context. Nil means
	// no key: an upload is SERVICE_UNAVAILABLE.
	Codes Secrets
	// Files holds contact imports' uploaded files (S3). Nil means imports
	// are not configured: starting one fails.
	Files contactimport.Files
}

// Service runs the use cases over a store.
type Service struct {
	store Store
	cfg   Config
	log   *slog.Logger
	// campaigns is the campaign slice's application layer over store.
	campaigns *campaign.App
	// webhooks is the webhook slice's use cases (Config.Webhooks,
	// Config.Secrets).
	webhooks *webhook.App
	// recipients is the recipient slice's use cases (Config.Mailer,
	// Config.PublicBaseURL).
	recipients *recipient.App
	// audiences is the audience slice's use cases (audiences.go).
	audiences *audience.App
	// contacts is the contact slice's use cases (contacts.go), whose jobs
	// go to Config.Jobs.
	contacts *contact.App
	// easypost is the EasyPost integration's use cases (Config.Secrets
	// seals its webhook secret).
	easypost *fulfilment.EasyPost
	// codes is the digital gifts' code pools, sealed with Config.Codes.
	codes *giftcodes.App
	// erasures is the erasure of a person on request (erasure.go).
	erasures *erasure.App
	// imports is the CSV import of contacts (imports.go), whose files are
	// Config.Files and whose rows go through contacts.
	imports *contactimport.App
}

// New returns the use cases over store, with the webhook slice's built
// from cfg (Webhooks) and the audience and contact slices' over the
// service's queue (Audiences, Contacts): every process that builds the
// service, the HTTP functions' and the worker's, gets them wired alike.
func New(store Store, cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Mailer != nil {
		// A sandbox's emails are captured, never sent: the only way the
		// sandbox's emails differ from the live ones.
		cfg.Mailer = sandbox.Mailer{Live: cfg.Mailer, Store: store}
	}
	hooks := webhook.NewApp(store, webhook.Config{Sealer: cfg.Secrets, Sender: webhooks.NewSender(cfg.Webhooks),
		Render: wire.Change, Log: cfg.Logger})
	s := &Service{store: store, cfg: cfg, log: cfg.Logger, webhooks: hooks,
		recipients: recipient.NewApp(store, recipient.Config{PublicBaseURL: cfg.PublicBaseURL, Mailer: cfg.Mailer, Logger: Logger, Codes: codeOpener(cfg.Codes)})}
	s.campaigns = s.newCampaigns()
	var sealer fulfilment.Sealer
	if cfg.Secrets != nil {
		sealer = cfg.Secrets // a nil Secrets must stay a nil Sealer: NewEasyPost tests it
	}
	// The store's clock is read when a secret is set: a process built
	// without a store (a job runner's test) never sets one.
	s.easypost = fulfilment.NewEasyPost(store, sealer, func() time.Time { return store.Now() })
	s.contacts = contact.NewApp(store, contactJobs{s})
	var codes giftcodes.Sealer
	if cfg.Codes != nil {
		codes = cfg.Codes // a nil Codes must stay a nil Sealer: NewApp tests it
	}
	s.codes = giftcodes.NewApp(store, codes)
	s.erasures = erasure.NewApp(store, s.contacts)
	s.imports = contactimport.NewApp(store, cfg.Files, s.contacts, contactJobs{s})
	s.audiences = s.newAudiences()
	return s
}

// Recipients returns the recipient slice's use cases (add-recipient, the
// recipient reads and moves, the pages, the emails, the expiry): the
// recipients group's handlers call them.
func (s *Service) Recipients() *recipient.App { return s.recipients }

// EasyPost returns the EasyPost integration's use cases (its webhook
// secret, its signed tracker events): the webhooks group's handlers call
// them, and the recipient slice's Track applies an event.
func (s *Service) EasyPost() *fulfilment.EasyPost { return s.easypost }

// GiftCodes returns the code pools of digital gifts (their sealer is the
// service's: Config.Codes).
func (s *Service) GiftCodes() *giftcodes.App { return s.codes }

// Webhooks returns the webhook slice's use cases: the webhooks group's
// handlers and the stream's deliveries call them.
func (s *Service) Webhooks() *webhook.App { return s.webhooks }

// RunJob runs one slice of a background job and returns the job that
// continues it, nil when the work is done: the worker function, the local
// queue and the scheduler call it (it is a jobs.Handler). Each use case that
// has background work adds its kinds here, or to the runner of the jobs its
// routes start (RunCampaignJobs, RunAudienceJobs, RunContactJobs), which an
// HTTP function's in-process runner (sam local) uses so as to link no
// other job's code.
func (s *Service) RunJob(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	switch j.Kind {
	case gifting.JobScheduledLaunch:
		return s.runScheduledLaunch(ctx, j)
	case gifting.JobRecipientEmails:
		return s.runRecipientEmails(ctx, j)
	case webhook.JobDelivery:
		return nil, s.webhooks.RunDelivery(ctx, j.OrgID, j.Ref)
	}
	for _, run := range []jobs.Handler{s.RunCampaignJobs, s.RunAudienceJobs, s.RunContactJobs} {
		if next, err := run(ctx, j); !errors.Is(err, errOtherJob) {
			return next, err
		}
	}
	return nil, fmt.Errorf("unknown job kind %q", j.Kind)
}

// errOtherJob is a runner's answer to a kind of job it does not run.
var errOtherJob = errors.New("not a job of this runner")

// RunCampaignJobs runs the jobs the campaign routes start: a launch, and the
// expiry of a completed campaign.
func (s *Service) RunCampaignJobs(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	switch j.Kind {
	case gifting.JobLaunch:
		return s.runLaunch(ctx, j)
	case gifting.JobCampaignExpire:
		return s.runCampaignExpire(ctx, j)
	}
	return nil, fmt.Errorf("%w: %q", errOtherJob, j.Kind)
}

// RunContactJobs runs the jobs the contact routes start: the removal of a
// deleted list's memberships, the erasure of a person, and the reading of an
// imported file.
func (s *Service) RunContactJobs(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	switch j.Kind {
	case contact.JobListDelete:
		return s.runListDelete(ctx, j)
	case erasure.JobErase:
		return s.runErasure(ctx, j)
	case contactimport.JobKind:
		return s.runImport(ctx, j)
	}
	return nil, fmt.Errorf("%w: %q", errOtherJob, j.Kind)
}

// enqueue hands j to the configured queue.
func (s *Service) enqueue(ctx context.Context, j jobs.Job) error {
	if s.cfg.Jobs == nil {
		return fmt.Errorf("no job queue configured for %s", j)
	}
	return s.cfg.Jobs.Enqueue(ctx, j)
}

type ctxKey struct{}

// WithLogger returns ctx carrying log, the logger of the request (or job)
// it belongs to; use cases log through it, so their lines carry the
// request id.
func WithLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, ctxKey{}, log)
}

// Logger returns the logger ctx carries, slog.Default() when none.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(ctxKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// codeOpener is codes as the recipients' use cases open codes with (the
// delivered email of an organization that opted in), nil without a key:
// a nil Secrets must stay a nil CodeOpener, which they test.
func codeOpener(codes Secrets) recipient.CodeOpener {
	if codes == nil {
		return nil
	}
	return codes
}
