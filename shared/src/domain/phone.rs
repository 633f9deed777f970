//! Phone sign-in inputs, valid by construction.

use crate::message::msg;
use crate::{Error, Result};

/// An 11-digit mainland China mobile number (`1[3-9]` then nine digits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhoneNumber(String);

impl PhoneNumber {
    pub fn parse(raw: &str) -> Result<Self> {
        let s = raw.trim();
        let b = s.as_bytes();
        let valid = b.len() == 11
            && b[0] == b'1'
            && (b'3'..=b'9').contains(&b[1])
            && b.iter().all(u8::is_ascii_digit);
        if valid {
            Ok(Self(s.to_string()))
        } else {
            Err(Error::validation(
                msg::PHONENUMBER_MUST_BE_AN_11_DIGIT_MAINLAND_MOBILE_NUMBER,
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `138****1234`, for logs.
    pub fn masked(&self) -> String {
        format!("{}****{}", &self.0[..3], &self.0[7..])
    }
}

/// An SMS verification code: 4-8 digits.
#[derive(Clone, PartialEq, Eq)]
pub struct VerifyCode(String);

impl VerifyCode {
    pub fn parse(raw: &str) -> Result<Self> {
        let s = raw.trim();
        if (4..=8).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()) {
            Ok(Self(s.to_string()))
        } else {
            Err(Error::validation(msg::VERIFYCODE_MUST_BE_4_8_DIGITS))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for VerifyCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VerifyCode(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phone_numbers() {
        for good in ["13800138000", "19912345678", " 15012345678 "] {
            assert!(PhoneNumber::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "1380013800",
            "138001380000",
            "12800138000",
            "23800138000",
            "1380013800a",
            "+8613800138000",
        ] {
            assert!(PhoneNumber::parse(bad).is_err(), "{bad}");
        }
        let p = PhoneNumber::parse("13800138000").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.masked(), "138****8000");
    }

    #[test]
    fn verify_codes() {
        for good in ["1234", "123456", "12345678"] {
            assert!(VerifyCode::parse(good).is_ok(), "{good}");
        }
        for bad in ["", "123", "123456789", "12a4", "12 34"] {
            assert!(VerifyCode::parse(bad).is_err(), "{bad}");
        }
        let code = VerifyCode::parse("123456").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(format!("{code:?}"), "VerifyCode(***)");
    }
}
