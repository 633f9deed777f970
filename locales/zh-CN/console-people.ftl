# 控制台的人员相关页面：玩家及封禁、公平竞技、反馈、审计日志、登录方式、管理员账号与两步验证。

## 玩家：列表

people-title = 玩家
people-search = 搜索
people-search-placeholder = ID、昵称或手机号
people-search-button = 搜索
people-col-player = 玩家
people-col-kind = 类型
people-col-region = 地区
people-col-xp = 经验值
people-col-level = 等级
people-col-streak = 连续天数
people-col-ban = 封禁
people-col-joined = 注册时间
people-no-nickname = （无昵称）
people-kind-guest = 游客
people-kind-account = 正式账号
people-banned-badge = 已封禁
people-none-match = 没有符合条件的玩家。

## 按名称显示的存储值：会员等级、登录方式

people-tier-free = 免费版
people-tier-pro = 专业版
people-tier-proplus = 专业增强版
people-method-device = 设备（游客）
people-method-phone = 手机号
people-method-huawei = 华为帐号
people-method-apple = Apple
people-method-wechat = 微信
people-method-qq = QQ

## 单个玩家

people-player = 玩家
people-back = ← 玩家
people-id = ID
people-joined = 注册于 { $at }
people-progress = 进度
people-xp = 经验值
people-level = 等级
people-streak = 连续天数
people-streak-days = { $days } 天
people-check-in-days = 签到天数
people-active-track = 当前路线
people-none = 无
people-review = 复习
people-review-due = 待复习 { $count } 题
people-review-recall = 预计记忆率 { $percent }%
people-review-nothing = 尚无记忆记录
people-review-default = 默认 FSRS 参数
people-review-fitted = 个人 FSRS 参数，拟合于 { $at }
people-tier = 会员等级
people-account = 账号
people-region = 地区
people-not-set = 未设置
people-sign-in-methods = 登录方式
people-unknown = 未知
people-avatar = 头像
people-fair-play = 公平竞技
people-no-signals = 无可疑信号
people-held-note = 暂停上榜：不出现在其他玩家可见的任何排行榜上

## 玩家封禁

people-ban-title = 封禁
people-banned = 已封禁
people-banned-until = 至 { $at }
people-until-unbanned = 直至解除封禁
people-ban-reason = 原因：{ $reason }
people-lift-ban = 解除封禁
people-not-banned = 未封禁。
people-ban-reason-label = 原因（选填，仅工作人员可见）
people-ban-open-help = 两种结束方式都留空，则封禁持续到手动解除为止。
people-ban-days = 封禁天数
people-ban-until-label = 或结束于（北京时间）
people-ban-change = 修改封禁
people-ban-player = 封禁该玩家
people-flash-banned-until = 已封禁至 { $at }。
people-flash-banned-open = 已封禁，直至解除。
people-flash-unbanned = 已解除封禁。

## 反馈

people-feedback-title = 反馈
people-feedback-col-received = 收到时间
people-feedback-col-player = 玩家
people-feedback-col-feedback = 反馈内容
people-feedback-col-contact = 联系方式
people-feedback-col-screen = 所在页面
people-feedback-deleted = 账号已注销
people-feedback-empty = 暂无反馈。

## 公平竞技

fair-title = 公平竞技
fair-intro = 这里列出答题速度快于正常阅读速度，或应用上报用时超过实际经过时间的玩家。暂停上榜的玩家不会出现在其他玩家可见的任何排行榜上（本人仍可看到自己）；系统不会自动封禁任何人。阅读快的玩家请放行，脚本请保持暂停上榜或予以封禁。
fair-col-player = 玩家
fair-col-state = 状态
fair-col-week-score = 本周可疑分
fair-col-signals = 可疑信号（历史累计）
fair-col-examples = 最近的答题
fair-col-decide = 处理
fair-state-flagged = 已标记
fair-state-held = 暂停上榜
fair-state-cleared = 已放行
fair-state-banned = 已封禁
fair-held-mark = （暂停上榜）
fair-by = 处理人：{ $name }
fair-decider-system = 系统
fair-week-of = { $week } 当周
fair-count-too-fast = 答题过快 { $n }
fair-count-impossible = 用时不可能 { $n }
fair-count-fast-perfect = 全对且过快 { $n }
fair-count-merges = 异常合并 { $n }
fair-example = { $at }：服务器计时 { $server } 毫秒，应用上报 { $claimed } 毫秒，{ $result }（{ $signals }）
fair-unknown-ms = ？
fair-right = 答对
fair-wrong = 答错
fair-reason-placeholder = 原因（选填）
fair-reason-label = 原因
fair-clear = 放行
fair-hold = 暂停上榜
fair-ban = 封禁
fair-empty = 暂无被标记的玩家。
fair-done-cleared = { $name } 已放行：重新出现在排行榜上。
fair-done-held = { $name } 已暂停上榜：不出现在其他玩家可见的任何排行榜上。
fair-done-banned = { $name } 已被封禁。

## 审计日志（操作名称保留存储的代码）

audit-title = 审计日志
audit-intro = 管理员的每一次写操作，最新的在前。
audit-col-time = 时间
audit-col-actor = 操作人
audit-col-action = 操作
audit-col-target = 对象
audit-col-before = 修改前
audit-col-after = 修改后
audit-target-sep = ：
audit-empty = 暂无记录。
audit-target-admin = 管理员
audit-target-auth_provider = 登录方式
audit-target-category = 分类
audit-target-knowledge_card = 知识卡片
audit-target-player = 玩家
audit-target-question = 题目
audit-target-skill_node = 技能节点

## 登录方式

prov-title = 登录方式
prov-intro = 第三方登录方式可以随时停用或启用，玩家应用在下一次请求时即会生效。内置登录方式始终启用。
prov-col-provider = 登录方式
prov-col-type = 类型
prov-col-platforms = 平台
prov-col-state = 状态
prov-kind-third_party = 第三方
prov-kind-secondary = 内置
prov-platform-ios = iOS
prov-platform-android = Android
prov-platform-harmony = 鸿蒙
prov-name-phone_sms = 手机号
prov-name-huawei = 华为帐号
prov-name-apple = 通过 Apple 登录
prov-name-wechat = 微信
prov-name-qq = QQ
prov-enabled = 已启用
prov-disabled = 已停用
prov-enable = 启用
prov-disable = 停用
prov-built-in = 内置
prov-done-enabled = 已启用 { $name }。
prov-done-disabled = 已停用 { $name }，玩家无法再通过它登录。

## 管理员账号

admins-title = 管理员
admins-heading = 管理员账号
admins-new = 新建管理员
admins-change-password = 修改我的密码
admins-my-mfa = 我的两步验证
admins-read-only = 你可以查看这些账号；新建、修改、删除账号以及重置密码需要超级管理员角色。
admins-col-username = 用户名
admins-col-role = 角色
admins-col-state = 状态
admins-col-mfa = 两步验证
admins-col-last-sign-in = 最近登录
admins-col-created = 创建时间
admins-you = （你）
admins-active = 启用
admins-inactive = 停用
admins-mfa-on = 已开启
admins-mfa-off = 未开启
admins-never = 从未登录
admins-empty = 本页没有账号。
admins-back = ← 管理员
admins-new-title = 新建管理员
admins-username-rule = 用户名（3-50 个字符）
admins-role = 角色
admins-password-rule = 密码（8-128 个字符；留空则自动生成）
admins-password-shown-once = 密码只会在下一页显示一次。
admins-create = 创建管理员
admins-id = ID
admins-state = 状态
admins-mfa = 两步验证
admins-manage = 管理
admins-last-sign-in = 最近登录
admins-created = 创建时间
admins-updated = 更新时间
admins-change = 修改
admins-username = 用户名
admins-inactive-option = 停用（该管理员在所有地方退出登录）
admins-save = 保存
admins-password-and-removal = 密码与删除
admins-own-reset-note = （重置自己的密码会使你退出登录）
admins-reset-password = 重置密码
admins-reset-mfa = 重置两步验证（设备丢失）
admins-delete = 删除（停用）
admins-edit-help = 重置密码会显示一次新的随机密码，并结束该管理员的所有会话；重置两步验证会结束该管理员的所有会话，在其重新设置两步验证之前只凭密码即可登录；删除的管理员会被停用，并为审计日志保留。
admins-edit-read-only = 修改此账号、重置其密码或删除它需要超级管理员角色。
admins-password-title = 修改我的密码
admins-signed-in-as = 当前登录账号：{ $name }。你的其他控制台会话和 API 令牌将失效；此浏览器保持登录。
admins-current-password = 当前密码
admins-new-password = 新密码（8-128 个字符）
admins-new-password-again = 再次输入新密码
admins-change-password-button = 修改密码
admins-once-before = 账号{ " " }
admins-once-after = { " " }的密码仅显示这一次，请立即复制并妥善转交。
admins-once-reload = 刷新此页面后将不再显示。
admins-heading-created = 管理员已创建
admins-heading-reset = 密码已重置
admins-saved = 已保存 { $name }。
admins-deactivated = { $name } 已停用，其会话和令牌均已失效。
admins-mfa-reset = 已关闭 { $name } 的两步验证；对方可凭密码登录，并可重新设置。
admins-password-changed = 密码已修改，你的其他会话均已退出登录。

## 两步验证

mfa-title = 两步验证
mfa-heading = 两步验证登录
mfa-required = 此超级管理员账号必须先开启两步验证才能使用控制台：请在此设置。
mfa-on-badge = 两步验证已开启
mfa-off-badge = 两步验证未开启
mfa-on-text = 登录时需要输入身份验证器应用中的验证码（或一个恢复码）。
mfa-codes-left-before = 剩余恢复码：
mfa-codes-left-after = { " " }个。
mfa-turn-off-heading = 关闭两步验证
mfa-code-or-recovery = 当前验证码或恢复码
mfa-turn-off = 关闭两步验证
mfa-setup-started = 设置已开始：请用身份验证器应用扫描二维码（或手动输入密钥），然后填写应用显示的 6 位验证码。
mfa-qr-label = 两步验证密钥的二维码
mfa-secret = 密钥：
mfa-uri-summary = otpauth 链接
mfa-code-from-app = 应用中的验证码
mfa-turn-on = 开启两步验证
mfa-restart = 使用新密钥重新开始
mfa-off-intro = 开启两步验证后，登录时还需输入手机上身份验证器应用（TOTP）生成的验证码。
mfa-set-up = 设置两步验证
mfa-current-password = 当前密码
mfa-codes-title = 两步验证已开启
mfa-codes-intro = 以下恢复码仅显示这一次。每个恢复码可代替应用验证码登录一次（用于手机丢失时），请妥善保管。
mfa-codes-reload = 刷新此页面后将不再显示。
mfa-back = 返回两步验证
mfa-flash-setup = 请用身份验证器应用扫描二维码，然后填写应用显示的验证码。
mfa-flash-off = 两步验证已关闭。

## 审计操作名称

audit-action-admin-change_password = 修改自己的密码
audit-action-admin-create = 创建管理员
audit-action-admin-delete = 删除管理员
audit-action-admin-login = 管理员登录
audit-action-admin-login_failed = 管理员登录失败
audit-action-admin-mfa_disable = 关闭两步验证
audit-action-admin-mfa_enable = 开启两步验证
audit-action-admin-mfa_lock = 两步验证锁定
audit-action-admin-mfa_reset = 重置两步验证
audit-action-admin-reset_password = 重置密码
audit-action-admin-update = 修改管理员
audit-action-auth_providers-update = 修改登录方式
audit-action-category-archive = 归档分类
audit-action-category-create = 创建分类
audit-action-category-update = 修改分类
audit-action-knowledge_card-update = 修改知识卡片
audit-action-player-ban = 封禁玩家
audit-action-player-fair_play = 公平竞技裁定
audit-action-player-fair_play_hold = 自动暂停上榜
audit-action-player-unban = 解封玩家
audit-action-question-auto_review = 自动送审
audit-action-question-batch_archive = 批量归档题目
audit-action-question-batch_delete = 批量删除题目
audit-action-question-batch_publish = 批量发布题目
audit-action-question-batch_review = 批量送审题目
audit-action-question-create = 创建题目
audit-action-question-delete = 删除题目
audit-action-question-export = 导出题目
audit-action-question-import = 导入题目
audit-action-question-import_csv = CSV 导入题目
audit-action-question-revert = 恢复题目版本
audit-action-question-status = 修改题目状态
audit-action-question-update = 修改题目
audit-action-skill_node-create = 创建章节
audit-action-skill_node-delete = 删除章节
audit-action-skill_node-update = 修改章节

## 法定节假日日历与未成年人
nav-holidays = 节假日
hol-title = 法定节假日
hol-intro = 在“网络游戏版号”合规模式下，未成年人仅可在周五、周六、周日和此处列出的法定节假日的北京时间 20:00 至 21:00 游戏。周末调休上班不影响。每次修改都会记入审计日志。
hol-profile = 当前合规模式：
hol-profile-unused = 日历仅在 licensed_game 模式下生效
hol-day = 日期
hol-name = 名称
hol-add = 添加或改名
hol-col-day = 日期
hol-col-name = 名称
hol-col-by = 添加人
hol-remove = 删除
hol-empty = 日历中还没有节假日。
hol-done-put = { $day } 已设为法定节假日。
hol-done-removed = { $day } 已恢复为普通日期。
compliance-profile-education = 教育应用（自主申报未成年人模式）
compliance-profile-licensed_game = 网络游戏版号（国家新闻出版署实名认证）
dash-compliance-profile = 合规模式：
people-minor-mode = 未成年人模式
people-minor-mode-off = 未开启
people-declared-band = 申报：{ $band }
people-real-name = 实名认证
people-adult = 成年
people-minor = 未成年
age-band-under8 = 8 岁以下
age-band-8to12 = 8 至 12 岁
age-band-12to16 = 12 至 16 岁
age-band-16to18 = 16 至 18 岁
age-band-adult = 成年
real-name-status-unverified = 未认证
real-name-status-pending = 认证中
real-name-status-verified = 已认证
real-name-status-failed = 认证失败
people-guardian-pin-reset = 重置监护人密码
people-guardian-pin-reset-help = 仅在监护人申请并核实身份后操作：新密码将取代旧密码。
people-flash-guardian-pin = 新的监护人密码为 { $pin }，请告知监护人。此密码不会再次显示。
