//! An admin's role (operations.md: the admin accounts).

use crate::closed_set::closed_set;

closed_set! {
    /// What an admin may do: a super_admin also manages admins and settings.
    pub enum AdminRole in "role" {
        SuperAdmin = "super_admin",
        Admin = "admin",
    }
}
