//! Clients of the outside services sign-in depends on, written against configurable URLs
//! exactly as their public APIs define them.
//!
//! # Layout
//! - [`aliyun`]: Alibaba Cloud Phone Number Verification Service (`SendSmsVerifyCode`,
//!   `CheckSmsVerifyCode`), signed RPC requests.
//! - [`oidc`]: ID-token verification against a JWKS (keys cached, refetched on an
//!   unknown `kid`), the HUAWEI ID code exchange and Sign in with Apple.

pub mod aliyun;
pub mod oidc;
