-- Reference data: the 31 first-level mainland divisions (GB/T 2260 codes) and the
-- sign-in provider catalogue of operations.md §4 (stored flags seeded on).

INSERT INTO regions (code, name, short_name, parent_code, level, sort_order, enabled, updated_at) VALUES
    ('110000', '北京市', '北京', NULL, 1, 1, TRUE, 1767225600000),
    ('120000', '天津市', '天津', NULL, 1, 2, TRUE, 1767225600000),
    ('130000', '河北省', '河北', NULL, 1, 3, TRUE, 1767225600000),
    ('140000', '山西省', '山西', NULL, 1, 4, TRUE, 1767225600000),
    ('150000', '内蒙古自治区', '内蒙古', NULL, 1, 5, TRUE, 1767225600000),
    ('210000', '辽宁省', '辽宁', NULL, 1, 6, TRUE, 1767225600000),
    ('220000', '吉林省', '吉林', NULL, 1, 7, TRUE, 1767225600000),
    ('230000', '黑龙江省', '黑龙江', NULL, 1, 8, TRUE, 1767225600000),
    ('310000', '上海市', '上海', NULL, 1, 9, TRUE, 1767225600000),
    ('320000', '江苏省', '江苏', NULL, 1, 10, TRUE, 1767225600000),
    ('330000', '浙江省', '浙江', NULL, 1, 11, TRUE, 1767225600000),
    ('340000', '安徽省', '安徽', NULL, 1, 12, TRUE, 1767225600000),
    ('350000', '福建省', '福建', NULL, 1, 13, TRUE, 1767225600000),
    ('360000', '江西省', '江西', NULL, 1, 14, TRUE, 1767225600000),
    ('370000', '山东省', '山东', NULL, 1, 15, TRUE, 1767225600000),
    ('410000', '河南省', '河南', NULL, 1, 16, TRUE, 1767225600000),
    ('420000', '湖北省', '湖北', NULL, 1, 17, TRUE, 1767225600000),
    ('430000', '湖南省', '湖南', NULL, 1, 18, TRUE, 1767225600000),
    ('440000', '广东省', '广东', NULL, 1, 19, TRUE, 1767225600000),
    ('450000', '广西壮族自治区', '广西', NULL, 1, 20, TRUE, 1767225600000),
    ('460000', '海南省', '海南', NULL, 1, 21, TRUE, 1767225600000),
    ('500000', '重庆市', '重庆', NULL, 1, 22, TRUE, 1767225600000),
    ('510000', '四川省', '四川', NULL, 1, 23, TRUE, 1767225600000),
    ('520000', '贵州省', '贵州', NULL, 1, 24, TRUE, 1767225600000),
    ('530000', '云南省', '云南', NULL, 1, 25, TRUE, 1767225600000),
    ('540000', '西藏自治区', '西藏', NULL, 1, 26, TRUE, 1767225600000),
    ('610000', '陕西省', '陕西', NULL, 1, 27, TRUE, 1767225600000),
    ('620000', '甘肃省', '甘肃', NULL, 1, 28, TRUE, 1767225600000),
    ('630000', '青海省', '青海', NULL, 1, 29, TRUE, 1767225600000),
    ('640000', '宁夏回族自治区', '宁夏', NULL, 1, 30, TRUE, 1767225600000),
    ('650000', '新疆维吾尔自治区', '新疆', NULL, 1, 31, TRUE, 1767225600000);

INSERT INTO auth_providers (id, name, type, icon_key, platforms, enabled, sort_order, updated_at) VALUES
    ('phone_sms', 'Phone number', 'secondary', NULL, 'ios,android,harmony', TRUE, 1, 1767225600000),
    ('huawei', 'HUAWEI ID', 'third_party', 'huawei', 'android,harmony', TRUE, 2, 1767225600000),
    ('apple', 'Sign in with Apple', 'third_party', 'apple', 'ios', TRUE, 3, 1767225600000),
    ('wechat', 'WeChat', 'third_party', 'wechat', 'ios,android,harmony', TRUE, 4, 1767225600000),
    ('qq', 'QQ', 'third_party', 'qq', 'ios,android,harmony', TRUE, 5, 1767225600000);
