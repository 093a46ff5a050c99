package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/time/rate"

	"github.com/giftcampaign/service/shared/gifting"
)

// CreatePersona stores a new ICP persona of org created by userID. The
// persona must be validated; ids, ownership and timestamps are set here.
func (s *Store) CreatePersona(ctx context.Context, orgID, userID string, p gifting.ICPPersona) (gifting.ICPPersona, error) {
	now := s.Now()
	p.ICPID, p.OrganizationID, p.CreatedBy, p.CreatedAt, p.UpdatedAt = s.NewID(), orgID, userID, now, now
	if err := s.putCounted(ctx, orgID, icpSK(p.ICPID), personasOf(orgID), p); err != nil {
		return gifting.ICPPersona{}, err
	}
	p.Normalize()
	return p, nil
}

// Persona returns ICP persona id of org, or NOT_FOUND.
func (s *Store) Persona(ctx context.Context, orgID, id string) (gifting.ICPPersona, error) {
	var p gifting.ICPPersona
	found, err := s.get(ctx, orgPK(orgID), icpSK(id), &p)
	if err != nil {
		return p, err
	}
	if !found {
		return p, gifting.NotFound("ICP persona", id)
	}
	p.Normalize()
	return p, nil
}

// storedAudience is an audience item: the record and the bookkeeping of its
// build, which callers never see.
type storedAudience struct {
	gifting.AudienceList
	// Cursor is the id of the last contact the build has compared; every
	// commit of the build is conditioned on it, so a slice that runs twice
	// commits once.
	Cursor string `json:"buildCursor,omitempty"`
	// Failures counts the build's consecutive failed slices.
	Failures int `json:"buildFailures,omitempty"`
	// Clearing is set while a rebuild removes the previous build's
	// members; the build compares contacts only once they are all gone.
	Clearing bool `json:"buildClearing,omitempty"`
	// due is set when the audience is in the due index (buildDue): an
	// audience stored before builds were due is not put there by its
	// progress.
	due bool
}

// CreateAudience stores a new audience list of org, created by userID and
// built from persona a.ICPID, in status list-building; the build itself is
// a background job (BuildAudience). a must be validated. It returns
// NOT_FOUND when the persona, or the gift it is priced by, is not org's.
func (s *Store) CreateAudience(ctx context.Context, orgID, userID string, a gifting.AudienceList, price gifting.AudiencePrice) (gifting.AudienceList, error) {
	if _, err := s.Persona(ctx, orgID, a.ICPID); err != nil {
		return gifting.AudienceList{}, err
	}
	meta, err := s.audiencePrice(ctx, orgID, price)
	if err != nil {
		return gifting.AudienceList{}, err
	}
	now := s.Now()
	meta.BuildStartedAt, meta.ContactLists = now, map[string]gifting.ListProgress{}
	a.AudienceID, a.OrganizationID, a.CreatedBy, a.CreatedAt, a.UpdatedAt = s.NewID(), orgID, userID, now, now
	a.TotalMatch, a.CreditRequired, a.Status, a.Metadata = 0, 0, gifting.AudienceBuilding, meta
	// Due while it builds (buildDue): the tick builds it if the job's
	// message is lost.
	if err := s.putCountedWith(ctx, orgID, audienceSK(a.AudienceID), audiencesOf(orgID), storedAudience{AudienceList: a},
		buildDue(orgID, a.AudienceID, now.Add(DueLease))); err != nil {
		return gifting.AudienceList{}, err
	}
	a.Normalize()
	return a, nil
}

// buildDue are the due attributes of audience id of org while it builds,
// due at at: the scheduler tick runs its build job (JobAudienceBuild) when
// no slice has made progress for a lease. Each commit of the build pushes
// the due time on, and its end (ready or failed) takes it out of the due
// index.
func buildDue(orgID, id string, at time.Time) map[string]string {
	return dueAttrs(gifting.JobAudienceBuild, id, orgPK(orgID), audienceSK(id), at)
}

// audiencePrice resolves the price an audience states.
func (s *Store) audiencePrice(ctx context.Context, orgID string, price gifting.AudiencePrice) (gifting.AudienceMeta, error) {
	switch {
	case price.CreditsPerContact != nil:
		if c := *price.CreditsPerContact; c < 0 || c > gifting.MaxCreditsPerContact {
			return gifting.AudienceMeta{}, &gifting.Error{Code: gifting.CodeValidation, Message: "The request has invalid fields; see details.",
				Details: map[string]string{"creditsPerContact": fmt.Sprintf("must be between 0 and %d", gifting.MaxCreditsPerContact)}}
		}
		return gifting.AudienceMeta{CreditsPerContact: *price.CreditsPerContact, PricedBy: gifting.PricedByInput}, nil
	case price.GiftID != "":
		g, err := s.Gift(ctx, orgID, price.GiftID)
		if err != nil {
			return gifting.AudienceMeta{}, err
		}
		c, err := gifting.CreditsForPrice(g.Price)
		if err != nil {
			return gifting.AudienceMeta{}, fmt.Errorf("gift %q: %w", g.GiftID, err)
		}
		return gifting.AudienceMeta{CreditsPerContact: c, PricedBy: gifting.PricedByGift, GiftID: g.GiftID}, nil
	}
	gifts, err := s.VisibleGifts(ctx, orgID)
	if err != nil {
		return gifting.AudienceMeta{}, err
	}
	gifts = slices.DeleteFunc(gifts, func(g gifting.Gift) bool { return g.Status != gifting.GiftAvailable })
	if len(gifts) == 0 {
		return gifting.AudienceMeta{PricedBy: gifting.PricedByNone}, nil
	}
	cheapest := gifts[0]
	for _, g := range gifts[1:] {
		if g.Price < cheapest.Price || (g.Price == cheapest.Price && g.GiftID < cheapest.GiftID) {
			cheapest = g
		}
	}
	c, err := gifting.CreditsForPrice(cheapest.Price)
	if err != nil {
		return gifting.AudienceMeta{}, fmt.Errorf("gift %q: %w", cheapest.GiftID, err)
	}
	return gifting.AudienceMeta{CreditsPerContact: c, PricedBy: gifting.PricedByGift, GiftID: cheapest.GiftID}, nil
}

// Audience returns audience list id of org, or NOT_FOUND.
func (s *Store) Audience(ctx context.Context, orgID, id string) (gifting.AudienceList, error) {
	a, err := s.audience(ctx, orgID, id)
	return a.AudienceList, err
}

func (s *Store) audience(ctx context.Context, orgID, id string) (storedAudience, error) {
	a, _, err := s.audienceAsStored(ctx, orgID, id)
	return a, err
}

// DeleteAudience removes an audience list that has no members yet: the
// undo of CreateAudience when its build could not be started. The
// audiences counter drops in the same transaction.
func (s *Store) DeleteAudience(ctx context.Context, orgID, id string) error {
	err := s.transactRetrying(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName: &s.table, Key: key(orgPK(orgID), audienceSK(id)),
			ConditionExpression:       aws.String("totalMatch = :zero"),
			ExpressionAttributeValues: item{":zero": num(0)},
		}},
		s.counterAdd(orgID, counterAudiences, -1),
	})
	if err != nil && reasonCode(cancellationReasons(err), 0) != "ConditionalCheckFailed" {
		return fmt.Errorf("delete audience %s: %w", id, err)
	}
	return nil
}

// Build sizes. A slice compares one page of contacts (at most the
// caller's sliceContacts, fewer when the page reaches 1 MB); matches are
// committed in transactions of up to membersPerCommit members plus the
// audience's counters.
const (
	// 98 members, the audience and, on the last commit, its change
	// record: TransactWriteItems takes at most 100 items.
	membersPerCommit = 98
	// buildCommitUnits is about the most write units one commit of a build
	// takes: each member twice in the transaction, and its Slim entry.
	buildCommitUnits = 3 * membersPerCommit
	// maxBuildFailures is how many consecutive failed slices make a build
	// fail for good: below the job queue's own redelivery limit, so the
	// audience reaches failed before the job is dropped.
	maxBuildFailures = 3
)

// errBuildOvertaken reports that another run of the same slice committed
// first; this run stops, the other carries on.
var errBuildOvertaken = errors.New("audience build overtaken")

// BuildAudience runs one slice of audience id's build: it compares the
// next page of org's contacts (at most sliceContacts) with the persona and
// commits the matches.
// It returns done when the build needs no further slice: the audience is
// ready (or failed, or was never building), or another run of the same
// slice got there first. It is safe to run any number of times, at once
// or one after another: each commit is conditioned on the build's cursor.
func (s *Store) BuildAudience(ctx context.Context, orgID, id string, sliceContacts int) (done bool, err error) {
	a, err := s.audience(ctx, orgID, id)
	if err != nil {
		return true, err
	}
	if a.Status != gifting.AudienceBuilding {
		if a.due { // a build that ended without leaving the due index
			return true, s.dueDone(ctx, orgPK(orgID), audienceSK(id))
		}
		return true, nil
	}
	if a.Clearing {
		return false, s.clearPreviousBuild(ctx, orgID, a, sliceContacts)
	}
	persona, err := s.Persona(ctx, orgID, a.ICPID)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return true, s.FailAudience(ctx, orgID, id, "the audience's ICP persona no longer exists")
	}
	if err != nil {
		return false, err
	}
	m := gifting.NewMatcher(persona.Persona)
	if m.Empty() {
		// A persona without criteria matches nothing: no contact needs
		// reading to know that.
		return true, s.commitBuild(ctx, orgID, &a, nil, a.Cursor, 0, true, nil)
	}
	// The members go to the organization's partition, as a launch's
	// recipients do, but a commit lands up to buildCommitUnits there at
	// once: paced at the launch's rate less that, a build stays under it
	// in any second (and so under the partition key's 1,000).
	pace := rate.NewLimiter(rate.Limit(max(s.launchRate-buildCommitUnits, s.launchRate/4)), launchWriteBurst)
	in := s.contactRange(orgID, true)
	in.Limit = aws.Int32(int32(sliceContacts))
	// Only what matching and the member snapshot read: a contact's
	// emails, sources and campaigns are most of its size.
	in.ProjectionExpression, in.ExpressionAttributeNames = matchProjection()
	if a.Cursor != "" {
		in.ExclusiveStartKey = key(orgPK(orgID), contactSK(a.Cursor))
	}
	res, err := s.db.Query(ctx, in)
	if err != nil {
		return false, fmt.Errorf("query contacts for audience %s: %w", id, err)
	}
	last := res.LastEvaluatedKey == nil
	now := s.Now()
	var (
		members []item
		scanned int64
		cursor  = a.Cursor
	)
	for i, it := range res.Items {
		c, err := decodeContact(it)
		if err != nil {
			return false, err
		}
		// An email's slot holding no contact (an alias) is passed over.
		cursor = strings.TrimPrefix(attrS(it, "SK"), contactPrefix)
		if c.ContactID != "" {
			scanned++
		}
		if on, ok := m.Match(c.bridge()); ok && c.ContactID != "" {
			mi, err := s.memberItem(orgID, gifting.NewAudienceMember(id, c.bridge(), on, now))
			if err != nil {
				return false, err
			}
			members = append(members, mi)
		}
		final := last && i == len(res.Items)-1
		if len(members) == membersPerCommit || final {
			if err := s.commitBuild(ctx, orgID, &a, members, cursor, scanned, final, pace); err != nil {
				return errors.Is(err, errBuildOvertaken), ignoreOvertaken(err)
			}
			members, scanned = nil, 0
		}
	}
	if scanned > 0 || len(res.Items) == 0 {
		// The tail of the page matched nothing (or the page was empty):
		// record how far the build got.
		if err := s.commitBuild(ctx, orgID, &a, members, cursor, scanned, last, pace); err != nil {
			return errors.Is(err, errBuildOvertaken), ignoreOvertaken(err)
		}
	}
	return last, nil
}

// matchAttributes are the contact attributes a build reads (drv and
// sources put back the address entry the item leaves out, see
// contactAttrs).
var matchAttributes = []string{"SK", "contactId", "mailId", "firstName", "lastName", "fullName", "jobTitle", "companyName",
	"address", "addresses", "createdAt", "updatedAt", "isDeleted", "drv", "sources"}

// matchProjection is the projection of matchAttributes, every name through
// a placeholder (some are reserved words).
func matchProjection() (*string, map[string]string) {
	names := make(map[string]string, len(matchAttributes))
	refs := make([]string, len(matchAttributes))
	for i, a := range matchAttributes {
		refs[i] = fmt.Sprintf("#a%d", i)
		names[refs[i]] = a
	}
	return aws.String(strings.Join(refs, ", ")), names
}

func ignoreOvertaken(err error) error {
	if errors.Is(err, errBuildOvertaken) {
		return nil
	}
	return err
}

// memberItem is the stored form of an audience member, with its Slim entry
// (keyed in the contact's createdAt order; search text, and the contact's
// updatedAt and createdAt for the in-memory sorts).
func (s *Store) memberItem(orgID string, m gifting.AudienceMember) (item, error) {
	it, err := marshal(m)
	if err != nil {
		return nil, err
	}
	compact(it)
	sk := audienceMemberSK(m.AudienceID, m.ContactID)
	it["PK"], it["SK"] = str(orgPK(orgID)), str(sk)
	it["LPK"], it["LSK"] = str(audienceLPK(orgID, m.AudienceID)), str(audienceMemberLSK(m.CreatedAt, m.ContactID))
	it["srch"] = str(m.SearchText())
	it["upd"] = str(m.UpdatedAt.UTC().Format(timeLayout))
	it["srt"] = str(m.CreatedAt.UTC().Format(timeLayout))
	return it, nil
}
