//! The question status workflow (spec "Question status (admin)", operations.md §9): which
//! moves the status endpoint, DELETE and the batch operations accept.

use crate::closed_set::closed_set;

closed_set! {
    /// A question's status.
    pub enum QuestionStatus in "status" {
        Draft = "draft",
        Reviewing = "reviewing",
        Published = "published",
        Archived = "archived",
    }
}

/// True when the status endpoint (and PUT with `status`) may move `from` to `to`.
/// A move to the same status is not in the table.
pub fn can_move(from: QuestionStatus, to: QuestionStatus) -> bool {
    use QuestionStatus::*;
    matches!(
        (from, to),
        (Draft, Reviewing)
            | (Draft, Archived)
            | (Reviewing, Published)
            | (Reviewing, Draft)
            | (Reviewing, Archived)
            | (Published, Archived)
            | (Archived, Draft)
    )
}

/// The statuses a bulk or DELETE operation accepts as its starting point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchAction {
    /// To published, from reviewing only.
    Publish,
    /// To archived, from draft or published.
    Archive,
    /// DELETE and batch-delete: to archived from draft, reviewing or published.
    Delete,
    /// batch-review: back to reviewing, from published only (a question whose answers
    /// point at a problem leaves the challenges until someone looks; outside the table
    /// of single moves, which has no way back from published).
    Review,
}

impl BatchAction {
    pub fn target(self) -> QuestionStatus {
        match self {
            Self::Publish => QuestionStatus::Published,
            Self::Archive | Self::Delete => QuestionStatus::Archived,
            Self::Review => QuestionStatus::Reviewing,
        }
    }

    /// The statuses this action moves from.
    pub fn sources(self) -> &'static [QuestionStatus] {
        use QuestionStatus::*;
        match self {
            Self::Publish => &[Reviewing],
            Self::Archive => &[Draft, Published],
            Self::Delete => &[Draft, Reviewing, Published],
            Self::Review => &[Published],
        }
    }

    pub fn accepts(self, from: QuestionStatus) -> bool {
        self.sources().contains(&from)
    }
}

#[cfg(test)]
mod tests {
    use super::QuestionStatus::*;
    use super::*;

    #[test]
    fn question_status_every_pair_of_the_table() {
        let allowed = [
            (Draft, Reviewing),
            (Draft, Archived),
            (Reviewing, Published),
            (Reviewing, Draft),
            (Reviewing, Archived),
            (Published, Archived),
            (Archived, Draft),
        ];
        let mut checked = 0;
        for from in QuestionStatus::ALL {
            for to in QuestionStatus::ALL {
                let expected = allowed.contains(&(from, to));
                assert_eq!(can_move(from, to), expected, "{from} -> {to}");
                checked += 1;
            }
        }
        assert_eq!(checked, 16);
    }

    #[test]
    fn question_status_explicit_refusals() {
        for s in QuestionStatus::ALL {
            assert!(!can_move(s, s), "{s} -> {s}");
        }
        assert!(!can_move(Draft, Published));
        assert!(!can_move(Published, Draft));
        assert!(!can_move(Published, Reviewing));
        assert!(!can_move(Archived, Published));
        assert!(!can_move(Archived, Reviewing));
    }

    #[test]
    fn question_status_batch_sources() {
        let cases = [
            (BatchAction::Publish, [false, true, false, false]),
            (BatchAction::Archive, [true, false, true, false]),
            (BatchAction::Delete, [true, true, true, false]),
            (BatchAction::Review, [false, false, true, false]),
        ];
        for (action, expected) in cases {
            for (from, want) in QuestionStatus::ALL.into_iter().zip(expected) {
                assert_eq!(action.accepts(from), want, "{action:?} from {from}");
            }
        }
        assert_eq!(BatchAction::Publish.target(), Published);
        assert_eq!(BatchAction::Archive.target(), Archived);
        assert_eq!(BatchAction::Delete.target(), Archived);
        assert_eq!(BatchAction::Review.target(), Reviewing);
    }

    #[test]
    fn question_status_parse_round_trips() {
        for s in QuestionStatus::ALL {
            assert_eq!(QuestionStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(QuestionStatus::parse("Draft"), None);
        assert_eq!(QuestionStatus::parse(""), None);
    }
}
