# 控制台：框架（页头、菜单、语言菜单）、登录、错误页、翻页，以及各页面共用的术语
# （状态、角色）。每个页面另有一个文件。

console-brand = 题库控制台
console-title = 控制台
nav-dashboard = 概览
nav-questions = 题目
nav-attention = 待处理
nav-import = CSV 导入
nav-media = 媒体库
nav-skill-tree = 技能树
nav-categories = 分类
nav-cards = 知识卡片
nav-players = 玩家
nav-fair-play = 公平竞技
nav-feedback = 反馈
nav-providers = 登录方式
nav-admins = 管理员
nav-audit = 审计日志
nav-mfa = 两步验证
sign-out = 退出登录
language = 语言
language-browser = 跟随浏览器
language-apply = 应用
# between the items of a list
list-sep = 、
role-super_admin = 超级管理员
role-admin = 管理员

## 按名称显示的存储值（i18n::term）

status-draft = 草稿
status-reviewing = 审核中
status-published = 已发布
status-archived = 已归档
content-type-text = 文字
content-type-image = 图片
content-type-video = 视频
content-type-audio = 音频
source-system = 官方
source-ugc = 用户投稿
flag-too_easy = 过于简单
flag-too_hard = 过难
flag-likely_miskeyed = 答案疑似有误
flag-dead_distractor = 无效干扰项
flag-negative_discrimination = 区分度为负
signal-too_fast = 答题过快
signal-time_claim_impossible = 用时不可能
signal-fast_perfect = 全对且过快

## 登录、错误页、翻页

sign-in-title = 登录
sign-in-username = 用户名
sign-in-password = 密码
sign-in-code = 两步验证码
sign-in-code-help = （仅当账号已开启两步验证时填写：身份验证器应用中的 6 位数字，或一个恢复码）
sign-in-submit = 登录
sign-in-signed-out = 已退出登录。
sign-in-mfa-needed = 此账号已开启两步验证：请在输入密码的同时填写身份验证器应用中的验证码（或恢复码）。
page-refused = 请求被拒绝
page-go-back = 返回
page-console-home = 控制台首页
page-error-unavailable = 服务暂时不可用，请稍后再试。
page-error-server = 服务器出错，错误已记录。请重试。
page-error-render = 页面无法显示
pager-previous = ← 上一页
pager-next = 下一页 →
pager-info = 第 { $page } 页 · 共 { $total } 条
sign-in-security-changes = 自上次登录以来，此帐号有以下变更：{ $list }。如非本人操作，请立即修改密码并重新设置两步验证。
security-change-admin-change_password = { $by } 修改了密码（{ $at }）
security-change-admin-reset_password = { $by } 重置了密码（{ $at }）
security-change-admin-mfa_setup = { $by } 开始设置两步验证（{ $at }）
security-change-admin-mfa_enable = { $by } 开启了两步验证（{ $at }）
security-change-admin-mfa_disable = { $by } 关闭了两步验证（{ $at }）
security-change-admin-mfa_reset = { $by } 重置了两步验证（{ $at }）
security-change-admin-mfa_lock = 验证码错误次数过多，已锁定（{ $at }）
